"""``{{ change.attribute|attribute_words }}``: an edited attribute as staff read it (``shop.audit.attribute_words``:
``Detail.Name`` is "Name"), as the activity list's summaries show it too."""

from __future__ import annotations

from django import template

from shop.audit import attribute_words

register = template.Library()
register.filter("attribute_words", attribute_words)
