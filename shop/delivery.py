"""When an order is expected to arrive: a business rule of the shop, used when an order is placed or shipped,
by the backfill of older orders, and for orders that do not store a date yet."""

from __future__ import annotations

from datetime import datetime, timedelta

# Days after the order (or shipment) date, by shipment type. Unknown types: standard.
DELIVERY_DAYS = {"Standard": 5, "Express": 2}
STANDARD_SHIPPING = "Standard"


def delivery_date_for(when: datetime, shipment_type: str | None = None) -> str:
    """``YYYY-MM-DD`` of the expected delivery of something placed/shipped at ``when``."""
    days = DELIVERY_DAYS.get(shipment_type or STANDARD_SHIPPING, DELIVERY_DAYS[STANDARD_SHIPPING])
    return (when + timedelta(days=days)).date().isoformat()
