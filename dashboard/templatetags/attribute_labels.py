"""``attribute_label``: the words staff read for an attribute an audit entry names (``DeliveryDate`` is "delivery
date"); a path without a label shows as it is stored."""

from __future__ import annotations

from django import template

from shop import orders

register = template.Library()

LABELS = {orders.DELIVERY_DATE: "delivery date"}


@register.filter
def attribute_label(attribute: str) -> str:
    return LABELS.get(attribute, attribute)
