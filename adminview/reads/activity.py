"""Staff changes newest first, from the view's activity entries (``schema.activity_entries``): all of them or one
kind's (one Query per write shard, merged), or one user's (one Query); a day is a key condition on the sort key
(``<at>#<id>``), so every page is a bounded number of calls whatever the history holds."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from adminview.core import schema, values
from adminview.core.schema import ActivityRow as ActivityRow
from adminview.reads.reads import Item, Range, RowsPage, list_page, list_shards, order_position
from dynamo.paging import check_limit
from shop import keys
from shop.errors import InvalidInput

MAX_USERNAME = 150
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ENTITY_KINDS = ("customer", "product", "stock", "warehouse")


def _row(raw: Item) -> ActivityRow:
    row = schema.ACTIVITY_KIND.read(raw, position=values.string(raw, schema.SK) or "")
    source = row.source or ""
    kind = row.kind or schema.activity_kind(source, row.action)
    return replace(row, kind=kind, entity_id=keys.strip(source) if kind in ENTITY_KINDS else None)


def activity(
    *,
    limit: int = 50,
    after: dict[str, Any] | None = None,
    user: str | None = None,
    day: str | None = None,
    kind: str | None = None,
) -> RowsPage[ActivityRow]:
    """Staff changes newest first: all, one ``kind``'s, or one user's; ``day`` (``YYYY-MM-DD``) narrows any of
    them. A user and a kind together are refused: each is its own list, and filtering one by the other would read
    pages that grow."""
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
    if user is not None:
        partitions = [schema.user_activity_partition(user)]
    elif kind is not None:
        partitions = list_shards(lambda n: schema.kind_activity_partition(kind, n))
    else:
        partitions = list_shards(schema.activity_partition)
    page = list_page(partitions, limit, forward=False, after=start, within=within)
    return RowsPage([_row(r) for r in page.rows], page.next)
