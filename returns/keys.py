"""Key formats of the returns table: the only module that knows its ``r#`` and ``f#`` prefixes, and the statuses
a return goes through (stored data: never rename one)."""

from __future__ import annotations

RETURN = "r#"  # PK = SK of a return
REFUND = "f#"  # SK of a refund, in its order's partition (PK o#<oid>, the shop's order key)
RETURN_ENTITY, REFUND_ENTITY = "return", "refund"

REQUESTED, APPROVED, REJECTED, RECEIVED, REFUNDED = "REQUESTED", "APPROVED", "REJECTED", "RECEIVED", "REFUNDED"
STATUSES = (REQUESTED, APPROVED, REJECTED, RECEIVED, REFUNDED)
OPEN = (REQUESTED, APPROVED, RECEIVED)  # awaiting staff: the queue


def return_id_of(key: str | None) -> str | None:
    """The return id in a stored key (``r#42`` -> ``42``); None for any other key."""
    return key[len(RETURN) :] if key and key.startswith(RETURN) and len(key) > len(RETURN) else None


def refund_id_of(key: str | None) -> str | None:
    """The refund id in a stored sort key (``f#7`` -> ``7``); None for any other key."""
    return key[len(REFUND) :] if key and key.startswith(REFUND) and len(key) > len(REFUND) else None
