"""``when``, ``money`` and ``waited``: a moment, an amount and how long since as every page shows them
(``dashboard.display``); ``attribute_label``: a stored attribute by its field's label."""

from __future__ import annotations

from django import template

from dashboard.display import money, waited, when
from dashboard.forms.editing import attribute_label

register = template.Library()
register.filter("when", when)
register.filter("money", money)
register.filter("waited", waited)
register.filter("attribute_label", attribute_label)
