"""``{{ order.date|when }}`` and ``{{ order.total|money }}``: a moment and an amount as every page shows them
(``dashboard.display``); ``{{ order.date|waited }}``: how long since (``3 d 4 h``);
``{{ change.attribute|attribute_label }}``: a stored attribute by its field's label."""

from __future__ import annotations

from django import template

from dashboard.display import money, waited, when
from dashboard.forms.editing import attribute_label

register = template.Library()
register.filter("when", when)
register.filter("money", money)
register.filter("waited", waited)
register.filter("attribute_label", attribute_label)
