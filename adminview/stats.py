"""Reading the numbers the sync keeps (``adminview.figures``): a constant number of calls, whatever the table holds.

- ``status_counts``: one BatchGetItem of the N status counters;
- ``daily`` and ``by_category``: one Query per counter shard (in parallel) over the range's days, at most 366;
  ``daily_and_by_category``: both from the same Queries;
- ``product_months``: one Query per counter shard of the product's months.

Each read sums the N write shards.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from adminview import figures
from adminview.models import ViewItem
from dynamo import ddb_json
from dynamo.batch import batch_get
from dynamo.client import client_of
from dynamo.instrumentation import run_in_context
from dynamo.paging import raw_items
from shop import keys
from shop.errors import InvalidInput

MAX_DAYS = 366
CENT = Decimal("0.01")


@dataclass(frozen=True)
class DayFigures:
    day: date
    orders: int
    cancelled: int
    units: int
    revenue: Decimal


@dataclass(frozen=True)
class CategoryFigures:
    day: date
    category: str
    units: int
    revenue: Decimal


@dataclass(frozen=True)
class MonthFigures:
    month: str  # YYYY-MM
    units: int
    revenue: Decimal


def _table() -> tuple[Any, str]:
    return client_of(ViewItem), str(ViewItem.Meta.table_name)


def _number(item: dict[str, Any], name: str) -> Decimal:
    text = ddb_json.text(item, name)
    return Decimal(text) if text else Decimal(0)


def _each_shard(query: Any) -> list[dict[str, Any]]:
    shards = figures.stats_shards()
    with ThreadPoolExecutor(max_workers=shards) as pool:
        return [item for part in pool.map(run_in_context(query), range(shards)) for item in part]


def status_counts() -> dict[str, int]:
    """Orders now in each status (every status listed, zeros included)."""
    client, table = _table()
    wanted = [ddb_json.key(*figures.status_key(shard)) for shard in range(figures.stats_shards())]
    found = batch_get(client, table, wanted, key_names=("PK", "SK"))
    return {status: int(sum(_number(item, status) for item in found if item)) for status in figures.STATUSES}


def check_range(start: date, end: date) -> None:
    if end < start:
        raise InvalidInput("the range ends before it starts")
    if (end - start).days + 1 > MAX_DAYS:
        raise InvalidInput(f"a range covers at most {MAX_DAYS} days")


def _day_items(start: date, end: date) -> list[dict[str, Any]]:
    check_range(start, end)
    client, table = _table()

    def query(shard: int) -> list[dict[str, Any]]:
        pk, _sk = figures.day_key(shard, "")
        return list(
            raw_items(
                client,
                "query",
                TableName=table,
                KeyConditionExpression="PK = :pk AND SK BETWEEN :a AND :b",
                ExpressionAttributeValues={
                    ":pk": ddb_json.s(pk),
                    ":a": ddb_json.s(start.isoformat()),
                    ":b": ddb_json.s(end.isoformat()),
                },
            )
        )

    return _each_shard(query)


def daily(*, start: date, end: date) -> list[DayFigures]:
    """One row for every day of the range, zeros included."""
    return _daily_rows(_day_items(start, end), start, end)


def by_category(*, start: date, end: date) -> list[CategoryFigures]:
    """One row per (day, category) with units sold, by day then category."""
    return _category_rows(_day_items(start, end))


def daily_and_by_category(*, start: date, end: date) -> tuple[list[DayFigures], list[CategoryFigures]]:
    """``daily`` and ``by_category`` of one range from one read of its day counters (the same items hold both):
    for a page that shows both."""
    items = _day_items(start, end)
    return _daily_rows(items, start, end), _category_rows(items)


def _daily_rows(items: list[dict[str, Any]], start: date, end: date) -> list[DayFigures]:
    sums: dict[str, dict[str, Decimal]] = {}
    for item in items:
        bucket = sums.setdefault(ddb_json.item_key(item)[1], {})
        for name in (figures.ORDERS, figures.CANCELLED_ORDERS, figures.UNITS, figures.REVENUE):
            bucket[name] = bucket.get(name, Decimal(0)) + _number(item, name)
    rows = []
    for offset in range((end - start).days + 1):
        day = start + timedelta(days=offset)
        found = sums.get(day.isoformat(), {})
        rows.append(
            DayFigures(
                day,
                int(found.get(figures.ORDERS, 0)),
                int(found.get(figures.CANCELLED_ORDERS, 0)),
                int(found.get(figures.UNITS, 0)),
                found.get(figures.REVENUE, Decimal(0)).quantize(CENT),
            )
        )
    return rows


def _category_rows(items: list[dict[str, Any]]) -> list[CategoryFigures]:
    units_prefix, revenue_prefix = figures.UNITS + figures.CATEGORY_SEP, figures.REVENUE + figures.CATEGORY_SEP
    sums: dict[tuple[str, str], list[Decimal]] = {}
    for item in items:
        day = ddb_json.item_key(item)[1]
        for name in item:
            if name.startswith(units_prefix):
                sums.setdefault((day, name[len(units_prefix) :]), [Decimal(0), Decimal(0)])[0] += _number(item, name)
            elif name.startswith(revenue_prefix):
                sums.setdefault((day, name[len(revenue_prefix) :]), [Decimal(0), Decimal(0)])[1] += _number(item, name)
    return [
        CategoryFigures(date.fromisoformat(day), category, int(units), revenue.quantize(CENT))
        for (day, category), (units, revenue) in sorted(sums.items())
        if units > 0
    ]


def product_months(*, product_id: str) -> list[MonthFigures]:
    """Units and revenue of a product per month (months with sales only), oldest first."""
    pid = keys.bare(product_id, keys.PRODUCT)
    client, table = _table()

    def query(shard: int) -> list[dict[str, Any]]:
        pk, _sk = figures.product_key(pid, shard, "")
        return list(
            raw_items(
                client,
                "query",
                TableName=table,
                KeyConditionExpression="PK = :pk",
                ExpressionAttributeValues={":pk": ddb_json.s(pk)},
            )
        )

    sums: dict[str, list[Decimal]] = {}
    for item in _each_shard(query):
        bucket = sums.setdefault(ddb_json.item_key(item)[1], [Decimal(0), Decimal(0)])
        bucket[0] += _number(item, figures.UNITS)
        bucket[1] += _number(item, figures.REVENUE)
    return [
        MonthFigures(month, int(units), revenue.quantize(CENT))
        for month, (units, revenue) in sorted(sums.items())
        if units or revenue
    ]
