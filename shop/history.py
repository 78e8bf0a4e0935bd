"""An entity's history: the audit entries of its edits, newest first, read from its own partition.

Entries of a customer live under ``c#<cid>``, of a product and its stock under ``p#<pid>``, of a warehouse under
``w#<wid>``, each with sort key ``AUDIT#<at>#<id>`` (``shop.audit.record_edit``), so a page is one Query with
``begins_with(SK, AUDIT#)`` read backwards: strongly ordered, never a Scan, and no other item of the partition.
"""

from __future__ import annotations

from dynamo.paging import Key, Page, query_page
from shop import keys
from shop.errors import InvalidInput
from shop.models import AuditEntry

DEFAULT_PAGE = 50
HISTORY_KINDS = {"customer": keys.customer, "product": keys.product, "warehouse": keys.warehouse}


def partition_of(kind: str, entity_id: str) -> str:
    """``c#<cid>`` for (customer, <cid>) ...; InvalidInput for an unknown kind or a bad id."""
    build = HISTORY_KINDS.get(kind)
    if build is None:
        raise InvalidInput(f"history is kept for {', '.join(HISTORY_KINDS)}, not {kind!r}")
    try:
        return build(entity_id)
    except keys.InvalidId as exc:
        raise InvalidInput(str(exc)) from exc


def entity_history(
    *, kind: str, entity_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None
) -> Page[AuditEntry]:
    """Query PK = <entity's partition>, SK begins_with AUDIT#, newest first (a product's include its stock's)."""
    return query_page(
        AuditEntry,
        partition_of(kind, entity_id),
        limit=limit,
        start_key=start_key,
        range_key_condition=AuditEntry.sk.startswith(keys.AUDIT),
        scan_index_forward=False,
    )
