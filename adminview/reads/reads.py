"""How the view's selectors read: one Query of a partition (of the table or of an index), every write shard of a
list at once, items by key, and the page positions they hand out. Every item comes back decoded once, here
(``dynamo.item_codec``): the selectors and the dashboard read plain values (``adminview.core.values``).

A position is the sort key of the last row a page showed (``{"before": ...}`` when the list runs backwards,
``{"after": ...}`` forwards): every shard of a list sorts by the same key, so one value positions all of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from adminview.core import schema, values
from adminview.core.values import Item as Item
from adminview.tables import read_items, view_client
from dynamo import ddb_json, item_codec, side_by_side
from shop.errors import InvalidInput

T = TypeVar("T")
MAX_POSITION = 1100  # a sort key (at most 1,024 bytes) and some slack
BEFORE, AFTER = "before", "after"
LAST_CHAR = "\U0010ffff"  # sorts after every character (DynamoDB compares UTF-8 bytes): a prefix's upper bound
_ORDER_POSITION = re.compile(r"^[0-9T:\-.+Z ]{0,40}#[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


@dataclass(frozen=True)
class RowsPage(Generic[T]):
    rows: list[T]
    next: dict[str, Any] | None


@dataclass(frozen=True)
class Range:
    """Sort keys from ``low`` to ``high``, both included (None: open)."""

    low: str | None = None
    high: str | None = None


def query(
    pk: str,
    *,
    limit: int,
    index: schema.Index | None = None,
    forward: bool = True,
    after: str | None = None,
    within: Range | None = None,
    begins_with: str | None = None,
    attributes: Sequence[str] | None = None,
) -> tuple[list[Item], bool]:
    """One Query page of partition ``pk`` (of ``index``, else of the table), in ``forward`` order, from the
    position ``after`` on (exclusive; "after" in the direction of reading), within a range of sort keys or under a
    prefix (``begins_with``, as a range, so that a position can continue it). The items, and whether there are more."""
    client, table = view_client()
    hash_name, range_name = index.key_names if index is not None else (schema.PK, schema.SK)
    if begins_with is not None:
        within = Range(begins_with, begins_with + LAST_CHAR)
    low, high = (within.low, within.high) if within is not None else (None, None)
    if after is not None:
        if forward:
            low = after if low is None or after >= low else low
        else:
            high = after if high is None or after <= high else high
    if low is not None and high is not None and low > high:
        return [], False
    on_sk = {(True, True): "#sk BETWEEN :low AND :high", (True, False): "#sk >= :low", (False, True): "#sk <= :high"}
    condition = on_sk.get((low is not None, high is not None))
    names = {"#pk": hash_name} | ({"#sk": range_name} if condition else {})
    given = {":pk": pk, ":low": low, ":high": high}
    expression = {name: ddb_json.s(value) for name, value in given.items() if value is not None}
    params: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "#pk = :pk" + (f" AND {condition}" if condition else ""),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": expression,
        "ScanIndexForward": forward,
        "Limit": limit + (1 if after is not None else 0),  # the position's own item may come back
    }
    if index is not None:
        params["IndexName"] = index.name
    if attributes:
        wanted = list(dict.fromkeys([hash_name, range_name, schema.PK, schema.SK, *attributes]))
        params["ProjectionExpression"] = ", ".join(f"#p{i}" for i in range(len(wanted)))
        names.update({f"#p{i}": name for i, name in enumerate(wanted)})
    response = client.query(**params)
    items = [item_codec.decode(i) for i in response.get("Items", [])]
    if after is not None:
        items = [i for i in items if i.get(range_name) != after]
    return items[:limit], bool(response.get("LastEvaluatedKey")) or len(items) > limit


def each_shard(shards: int, read: Callable[[int], list[Item]]) -> list[Item]:
    """``read(n)`` for every write shard, side by side (calls recorded in the request's log)."""
    return [r for part in side_by_side.map_calls(read, range(shards)) for r in part]


def list_shards(partition: Callable[[int], str]) -> list[str]:
    """The partitions of a write-sharded list: ``partition(n)`` for every list shard."""
    return [partition(n) for n in range(schema.list_shards())]


def list_page(
    partitions: Sequence[str], limit: int, *, index: schema.Index | None = None, forward: bool = True, **options: Any
) -> RowsPage[Item]:
    """A page of a list kept in several partitions (its write shards; of ``index``, else of the table): one Query
    of each, side by side, merged in list order (``options``: ``query``'s position and range)."""
    found = each_shard(
        len(partitions),
        lambda n: query(partitions[n], limit=limit + 1, index=index, forward=forward, **options)[0],
    )
    return merged_page(found, index.range_key if index is not None else schema.SK, limit, forward=forward)


def merged_page(found: list[Item], sort_name: str, limit: int, *, forward: bool) -> RowsPage[Item]:
    """The first ``limit`` of the shards' items in list order, and the position after them if there are more."""
    found.sort(key=lambda r: values.string(r, sort_name) or "", reverse=not forward)
    rows = found[:limit]
    more = len(found) > limit
    return RowsPage(rows, position(values.string(rows[-1], sort_name) or "", forward) if more and rows else None)


def position(sort_key: str, forward: bool) -> dict[str, Any]:
    return {AFTER if forward else BEFORE: sort_key}


def read_position(given: object, *, forward: bool, pattern: re.Pattern[str] | None = None) -> str | None:
    """The sort key a position names (None: the start); ``InvalidInput`` for one that is not ours."""
    if given is None:
        return None
    name = AFTER if forward else BEFORE
    if not isinstance(given, dict) or set(given) != {name} or not isinstance(given[name], str):
        raise InvalidInput("malformed page position")
    text = str(given[name])
    if len(text) > MAX_POSITION or (pattern is not None and not pattern.match(text)):
        raise InvalidInput("malformed page position")
    return text


def order_position(given: object, *, forward: bool) -> str | None:
    """A position in a list by date (``<date>#<id>``: of orders, of returns by ``Requested``)."""
    return read_position(given, forward=forward, pattern=_ORDER_POSITION)


def get_many(item_keys: Iterable[schema.Key], attributes: Sequence[str] | None = None) -> list[Item | None]:
    """Items by key (BatchGetItem, each key once), lined up with the keys (None: no item)."""
    wanted = list(item_keys)
    found = read_items(wanted, attributes, consistent=False)
    return [found[key] for key in wanted]
