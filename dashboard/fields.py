"""Objects handed to templates as dicts of the attributes the templates show.

A template variable ``{{ order.status }}`` first tries ``order["status"]``; on a PynamoDB model or a dataclass
that raises, and the exception is handled before the attribute is read: several microseconds a lookup, against
well under one for a dict. The order page, the explorer and the page sections read dozens of such attributes,
so their views hand the templates dicts made here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

ORDER = ("order_id", "customer_id", "date", "total", "status", "version", "expected_delivery", "delivery_date_stored")
ORDER_ITEM = ("product_id", "is_favourite")
AUDIT_ENTRY = (
    "at",
    "user",
    "action",
    "from_status",
    "to_status",
    "product_id",
    "detail",
    "order_version",
    "request_id",
)
SECTION = ("name", "title", "row_class", "columns")
PATTERN = ("number", "name", "description", "where", "operation", "condition", "usage", "params")
CALL = ("operation", "table", "index", "items", "read_units", "ms")
CALL_LOG = ("count", "read_units", "ms")


def fields(obj: object, names: Iterable[str]) -> dict[str, Any]:
    """``{name: obj.name}`` for each name."""
    return {name: getattr(obj, name) for name in names}
