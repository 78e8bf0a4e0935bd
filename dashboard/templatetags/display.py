"""``{{ order.date|when }}`` and ``{{ order.total|money }}``: a moment and an amount as every page shows them
(``dashboard.display``); ``{{ change.attribute|attribute_label }}``: a stored attribute by its field's label."""

from __future__ import annotations

from django import template

from dashboard.display import money, when
from dashboard.edit_forms import attribute_label

register = template.Library()
register.filter("when", when)
register.filter("money", money)
register.filter("attribute_label", attribute_label)
