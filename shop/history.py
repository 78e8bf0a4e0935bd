"""An entity's history: the audit entries of its edits (``AUDIT#<at>#<id>`` in its own partition; a product's
include its stock's), so a page is one Query read backwards, never a Scan.
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
    return build(entity_id)


def entity_history(
    *, kind: str, entity_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None
) -> Page[AuditEntry]:
    """Query PK = <entity's partition>, SK begins_with AUDIT#, newest first."""
    return query_page(
        AuditEntry,
        partition_of(kind, entity_id),
        limit=limit,
        start_key=start_key,
        range_key_condition=AuditEntry.sk.startswith(keys.AUDIT),
        scan_index_forward=False,
    )
