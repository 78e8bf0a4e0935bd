"""Staff changes newest first, from the view's activity entries (``schema.activity_entries``): all of them or one
kind's (one Query per write shard, merged), or one user's (one Query); a day is a key condition on the sort key
(``<at>#<id>``), so every page is a bounded number of calls whatever the history holds."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adminview.core import schema
from adminview.reads.reads import Range, Raw, RowsPage, each_shard, merged_page, order_position, query
from dynamo import ddb_json
from dynamo.paging import check_limit
from shop import keys
from shop.errors import InvalidInput
from shop.timestamps import parse_ts

MAX_USERNAME = 150
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ENTITY_KINDS = ("customer", "product", "stock", "warehouse")


@dataclass(frozen=True)
class ActivityRow:
    order_id: str
    at: datetime | None
    action: str
    user: str
    from_status: str | None
    to_status: str | None
    order_version: int | None
    request_id: str | None
    product_id: str | None
    detail: str | None
    position: str
    kind: str = "order"  # schema.activity_kind: order, customer, product, stock, warehouse, system
    entity_id: str | None = None  # the customer, product or warehouse an entity edit changed (bare)


def _row(raw: Raw) -> ActivityRow:
    source = ddb_json.string(raw, "Source") or ""
    kind = ddb_json.string(raw, "ActivityKind") or schema.activity_kind(source, ddb_json.text(raw, "Action"))
    at_text = ddb_json.text(raw, "At")
    try:
        at = parse_ts(at_text) if at_text else None
    except ValueError:
        at = None
    return ActivityRow(
        order_id=ddb_json.text(raw, "OrderId") or "",
        at=at,
        action=ddb_json.text(raw, "Action") or "",
        user=ddb_json.text(raw, "User") or "",
        from_status=ddb_json.text(raw, "FromStatus"),
        to_status=ddb_json.text(raw, "ToStatus"),
        order_version=ddb_json.integer(raw, "OrderVersion"),
        request_id=ddb_json.text(raw, "RequestId"),
        product_id=ddb_json.text(raw, "ProductId"),
        detail=ddb_json.text(raw, "Detail"),
        position=ddb_json.string(raw, schema.SK) or "",
        kind=kind,
        entity_id=keys.strip(source) if kind in ENTITY_KINDS else None,
    )


def activity_entries(
    *,
    limit: int = 50,
    after: dict[str, Any] | None = None,
    user: str | None = None,
    day: str | None = None,
    kind: str | None = None,
) -> RowsPage[Raw]:
    """Staff changes newest first (the entries as stored): all, one ``kind``'s, or one user's; ``day``
    (``YYYY-MM-DD``) narrows any of them. A user and a kind together are refused: each is its own list, and
    filtering one by the other would read pages that grow."""
    check_limit(limit)
    start = order_position(after, forward=False)
    if day is not None and not _DAY.match(day):
        raise InvalidInput("day must be YYYY-MM-DD")
    if user is not None and not 0 < len(user) <= MAX_USERNAME:
        raise InvalidInput(f"a user name is 1 to {MAX_USERNAME} characters")
    if kind is not None and kind not in schema.ACTIVITY_KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(schema.ACTIVITY_KINDS)}")
    if user is not None and kind is not None:
        raise InvalidInput("filter by a user or by a kind, not both")
    within = Range(day, day + "~") if day is not None else Range()

    def read(pk: str) -> list[Raw]:
        return query(pk, limit=limit + 1, forward=False, after=start, within=within)[0]

    if user is not None:
        found = read(schema.user_activity_partition(user))
    elif kind is not None:
        found = each_shard(schema.list_shards(), lambda n: read(schema.kind_activity_partition(kind, n)))
    else:
        found = each_shard(schema.list_shards(), lambda n: read(schema.activity_partition(n)))
    return merged_page(found, schema.SK, limit, forward=False)


def activity(
    *,
    limit: int = 50,
    after: dict[str, Any] | None = None,
    user: str | None = None,
    day: str | None = None,
    kind: str | None = None,
) -> RowsPage[ActivityRow]:
    page = activity_entries(limit=limit, after=after, user=user, day=day, kind=kind)
    return RowsPage([_row(r) for r in page.rows], page.next)
