"""``{{ order.date|when }}`` and ``{{ order.total|money }}``: a moment and an amount as every page shows them
(``dashboard.display``)."""

from __future__ import annotations

from django import template

from dashboard.display import money, when

register = template.Library()
register.filter("when", when)
register.filter("money", money)
