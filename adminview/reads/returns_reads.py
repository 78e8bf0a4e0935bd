"""Read functions of the returns as the admin view keeps them: a constant number of calls, whatever the tables hold.

- ``returns``: a status's returns (one Query per write shard of its list in the status index), or the queue of
  those awaiting action (its three open statuses' shards, merged), oldest ``Requested`` first;
- ``customer_returns``: one Query of the customer's return entries, newest first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adminview.core import schema
from adminview.reads.reads import Raw, RowsPage, each_shard, merged_page, query, read_position
from dynamo import ddb_json
from dynamo.paging import check_limit
from returns import keys as return_keys
from shop import keys
from shop.errors import InvalidInput
from shop.timestamps import parse_ts

OPEN = "open"
_POSITION = re.compile(r"^[0-9T:\-.+Z ]{0,40}#[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


@dataclass(frozen=True)
class ReturnRow:
    return_id: str
    order_id: str
    customer_id: str
    status: str | None
    requested: datetime | None
    position: str


def _requested(text: str | None) -> datetime | None:
    try:
        return parse_ts(text) if text else None
    except ValueError:
        return None


def _row(raw: Raw, position: str) -> ReturnRow:
    """A return from what a list holds of it: its position (``<requested>#<rid>``, which the index projects with
    every item) and the attributes the list carries."""
    requested, _sep, return_id = position.rpartition("#")
    return ReturnRow(
        return_id=return_id,
        order_id=ddb_json.text(raw, "OrderId") or "",
        customer_id=ddb_json.text(raw, "CustomerId") or "",
        status=ddb_json.text(raw, "Status"),
        requested=_requested(requested),
        position=position,
    )


def statuses_of(status: str) -> tuple[str, ...]:
    """The statuses a ``status=`` parameter names: ``open`` (awaiting action) or one status."""
    if status == OPEN:
        return return_keys.OPEN_STATUSES
    if status in set(return_keys.ReturnStatus):
        return (status,)
    raise InvalidInput(f"status must be {OPEN} or one of {', '.join(return_keys.ReturnStatus)}")


def returns(*, status: str = OPEN, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[ReturnRow]:
    """Returns of a status (or awaiting action), oldest ``Requested`` first."""
    wanted = statuses_of(status)
    check_limit(limit)
    start = read_position(after, forward=True, pattern=_POSITION)
    index = schema.ORDERS_BY_STATUS
    partitions = [schema.return_status_partition(s, n) for s in wanted for n in range(schema.list_shards())]
    found = each_shard(len(partitions), lambda n: query(partitions[n], index=index, limit=limit + 1, after=start)[0])
    page = merged_page(found, index.range_key, limit, forward=True)
    return RowsPage([_row(r, ddb_json.string(r, index.range_key) or "") for r in page.rows], page.next)


def customer_returns(*, customer_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[ReturnRow]:
    """A customer's returns, newest ``Requested`` first (their return entries: one Query)."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    check_limit(limit)
    start = read_position(after, forward=False, pattern=_POSITION)
    prefix = schema.CUSTOMER_RETURN_PREFIX
    first = prefix + start if start is not None else None
    found, _more = query(keys.customer(cid), limit=limit + 1, forward=False, after=first, begins_with=prefix)
    rows = found[:limit]
    positions = [(ddb_json.string(r, schema.SK) or "").removeprefix(prefix) for r in rows]
    page = [_row({**r, "CustomerId": ddb_json.s(cid)}, p) for r, p in zip(rows, positions, strict=True)]
    return RowsPage(page, {"before": positions[-1]} if len(found) > limit and positions else None)
