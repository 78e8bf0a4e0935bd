"""Key formats of the returns table: the only module that knows the ``r#`` and ``f#`` prefixes, and the statuses a
return goes through (stored data: never rename one). The layout: see docs/returns.md, "The table".

Ids are validated with the shop's rules (``shop.keys.bare``); the order reference is the shop's own ``o#<oid>``, so the
two tables name an order with the same text.
"""

from __future__ import annotations

import os
from enum import StrEnum

from shop import keys as shop_keys
from shop.keys import EntityKeys

RETURN = "r#"  # PK = SK of a return
REFUND = "f#"  # SK of a refund, in its order's partition (PK o#<oid>, the shop's order key)
ORDER = shop_keys.ORDER
REFUNDED_TOTAL = "REFUNDED"  # SK of an order's refunded total, beside its refunds (no ``f#``: not a refund)
RETURN_ENTITY, REFUND_ENTITY = "return", "refund"
# Attributes code reads or writes by name beside the models (``returns.models`` declares every attribute).
ENTITY_TYPE, STATUS, ORDER_ID, CUSTOMER_ID = "EntityType", "Status", "OrderId", "CustomerId"
NOTE = shop_keys.NOTE  # SK of a staff note in its return's partition: n#<at>#<id> (``shop.keys.note``)
GSI1, GSI1_PK, GSI1_SK = "GSI1", "GSI1-PK", "GSI1-SK"  # an order's returns: o#<oid> / r#<rid>
NOTE_ENTITY = "note"

DEFAULT_TABLE = "ShopReturns"


def table_name() -> str:
    """The returns table's name (``RETURNS_TABLE_NAME``): here, not in ``dynamo.conf``, so the admin view's pure core
    can name the table its source reads without importing the DynamoDB plumbing."""
    return os.environ.get("RETURNS_TABLE_NAME") or DEFAULT_TABLE


class ReturnStatus(StrEnum):
    """The statuses a return goes through, as stored (never rename one)."""

    REQUESTED = "REQUESTED"
    APPROVED = "APPROVED"
    REJECTED = "REJECTED"
    RECEIVED = "RECEIVED"
    REFUNDED = "REFUNDED"


class ReturnReason(StrEnum):
    """Why a line comes back, as stored in the line's ``Reason`` (never rename one); ``OTHER`` carries the words in
    ``ReasonText``. Lines written before these existed hold free text, shown as it is."""

    DAMAGED = "DAMAGED"
    DEFECTIVE = "DEFECTIVE"
    WRONG_ITEM = "WRONG_ITEM"
    NOT_AS_DESCRIBED = "NOT_AS_DESCRIBED"
    SIZE = "SIZE"
    UNWANTED = "UNWANTED"
    OTHER = "OTHER"

    @property
    def label(self) -> str:
        return REASON_LABELS[self]


REASON_LABELS = {
    ReturnReason.DAMAGED: "Arrived damaged",
    ReturnReason.DEFECTIVE: "Defective",
    ReturnReason.WRONG_ITEM: "Wrong item sent",
    ReturnReason.NOT_AS_DESCRIBED: "Not as described",
    ReturnReason.SIZE: "Wrong size",
    ReturnReason.UNWANTED: "No longer wanted",
    ReturnReason.OTHER: "Other",
}


def reason_code(reason: str | None) -> ReturnReason:
    """A line's reason as the queue filters it: its code; older free text counts as ``OTHER``."""
    try:
        return ReturnReason(reason or "")
    except ValueError:
        return ReturnReason.OTHER


def reason_words(reason: str | None, text: str | None = None) -> str:
    """A line's reason as staff read it: a known code's words (``OTHER`` with its text), older free text as it is."""
    try:
        known = ReturnReason(reason or "")
    except ValueError:
        return reason or ""
    return f"{known.label}: {text}" if known is ReturnReason.OTHER and text else known.label


def return_id(value: str) -> str:
    """A return's bare id (``r#7`` or ``7`` -> ``7``); ``shop.keys.InvalidId`` for anything else."""
    return shop_keys.bare(value, RETURN, what="return id")


def refund_id(value: str) -> str:
    return shop_keys.bare(value, REFUND, what="refund id")


def return_key(value: str) -> str:
    return RETURN + return_id(value)


order = shop_keys.order  # an order's key in both tables: o#<oid>


def return_keys(rid: str, order_id: str) -> EntityKeys:
    key = return_key(rid)
    return {"pk": key, "sk": key, "gsi1_pk": order(order_id), "gsi1_sk": key}


def refund_keys(order_id: str, fid: str) -> EntityKeys:
    return {"pk": order(order_id), "sk": REFUND + refund_id(fid)}


def refunded_keys(order_id: str) -> EntityKeys:
    return {"pk": order(order_id), "sk": REFUNDED_TOTAL}


def return_id_of(key: str | None) -> str | None:
    """The return id in a stored key (``r#42`` -> ``42``); None for any other key."""
    return shop_keys.without_prefix(key, RETURN)


def refund_id_of(key: str | None) -> str | None:
    """The refund id in a stored sort key (``f#7`` -> ``7``); None for any other key."""
    return shop_keys.without_prefix(key, REFUND)
