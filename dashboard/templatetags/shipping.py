"""``{% tracking_inputs row.order_id ship_from tracking_max %}``: a status list row's tracking number field, or one
per warehouse the order ships from, as the bulk form reads them (``dashboard.forms.bulk``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django import template

from dashboard.forms.bulk import FROM_WAREHOUSE, TRACKING_NUMBER_OF

register = template.Library()


@register.inclusion_tag("dashboard/_tracking_inputs.html")
def tracking_inputs(order_id: str, ship_from: Mapping[str, Sequence[str]], max_length: int) -> dict[str, Any]:
    name = TRACKING_NUMBER_OF + order_id
    warehouses = ship_from.get(order_id, ())
    return {
        "order_id": order_id,
        "name": name,
        "by_warehouse": [(wid, f"{name}{FROM_WAREHOUSE}{wid}") for wid in warehouses],
        "max_length": max_length,
    }
