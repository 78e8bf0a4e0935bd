"""Reading the numbers the sync keeps (``adminview.core.numbers``): a constant number of calls, whatever the
table holds (one BatchGetItem of the status counters, else one Query per sum shard, in parallel, of a range of at
most 366 days or of a product's months), each read summing the N write shards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from adminview.core import schema, values
from adminview.reads.reads import Item, Range, each_shard, get_many, query
from shop import keys
from shop.errors import InvalidInput
from shop.keys import OrderStatus

MAX_DAYS = 366
CENT = Decimal("0.01")
Figures = list[Decimal]


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
class RefundDay:
    day: date
    refunds: int
    refunded: Decimal
    for_returns: Decimal  # the part of ``refunded`` paid back for returned goods (the rest: cancelled orders)


@dataclass(frozen=True)
class MonthFigures:
    month: str  # YYYY-MM
    units: int
    revenue: Decimal


def _number(item: Item | None, name: str) -> Decimal:
    text = values.text(item, name)
    return Decimal(text) if text else Decimal(0)


def _summed(items: list[Item], names: tuple[str, ...]) -> dict[str, list[Decimal]]:
    """Each sort key's figures (``names``), summed over the shards' items."""
    sums: dict[str, list[Decimal]] = {}
    for item in items:
        bucket = sums.setdefault(values.item_key(item)[1], [Decimal(0)] * len(names))
        for position, name in enumerate(names):
            bucket[position] += _number(item, name)
    return sums


def status_counts() -> dict[str, int]:
    """Orders now in each status (every status listed, zeros included): one BatchGetItem of the shards."""
    found = get_many([schema.status_counts(shard) for shard in range(schema.sum_shards())])
    return {status: int(sum(_number(item, status) for item in found if item)) for status in OrderStatus}


def check_range(start: date, end: date) -> None:
    if end < start:
        raise InvalidInput("the range ends before it starts")
    if (end - start).days + 1 > MAX_DAYS:
        raise InvalidInput(f"a range covers at most {MAX_DAYS} days")


def _all(pk: str, within: Range | None = None) -> list[Item]:
    """Every item of a sum partition in the range: at most 366 days or a product's months, so one Query."""
    within = within or Range()
    found, more = query(pk, limit=MAX_DAYS, within=within)
    while more and found:
        page, more = query(pk, limit=MAX_DAYS, within=within, after=values.string(found[-1], schema.SK))
        found += page
    return found


def _day_items(start: date, end: date, sums: Callable[[int, str], schema.Key] = schema.day_sums) -> list[Item]:
    """Every sum shard's items of a range of days (``sums``: the key of a day's sums, the orders' or the refunds')."""
    check_range(start, end)
    within = Range(start.isoformat(), end.isoformat())
    return each_shard(schema.sum_shards(), lambda n: _all(sums(n, "")[0], within))


def daily(*, start: date, end: date) -> list[DayFigures]:
    """One row for every day of the range, zeros included."""
    return _daily_rows(_day_items(start, end), start, end)


def by_category(*, start: date, end: date) -> list[CategoryFigures]:
    """One row per (day, category) with units sold, by day then category."""
    return _category_rows(_day_items(start, end))


def daily_and_by_category(*, start: date, end: date) -> tuple[list[DayFigures], list[CategoryFigures]]:
    """``daily`` and ``by_category`` of one range from one read of its day counters (the same items hold both)."""
    items = _day_items(start, end)
    return _daily_rows(items, start, end), _category_rows(items)


def _each_day(items: list[Item], names: tuple[str, ...], start: date, end: date) -> Iterator[tuple[date, Figures]]:
    """Every day of the range (zeros included) with its figures (``names``), summed over the shards' items."""
    sums = _summed(items, names)
    for offset in range((end - start).days + 1):
        day = start + timedelta(days=offset)
        yield day, sums.get(day.isoformat(), [Decimal(0)] * len(names))


def _daily_rows(items: list[Item], start: date, end: date) -> list[DayFigures]:
    names = (schema.ORDERS, schema.CANCELLED_ORDERS, schema.UNITS, schema.REVENUE)
    return [
        DayFigures(day, int(orders), int(cancelled), int(units), revenue.quantize(CENT))
        for day, (orders, cancelled, units, revenue) in _each_day(items, names, start, end)
    ]


def _category_rows(items: list[Item]) -> list[CategoryFigures]:
    figures = {schema.UNITS: 0, schema.REVENUE: 1}  # a day's ``Units:<category>`` and ``Revenue:<category>``
    sums: dict[tuple[str, str], list[Decimal]] = {}
    for item in items:
        day = values.item_key(item)[1]
        for name in item:
            figure, sep, category = name.partition(schema.CATEGORY_SEP)
            if sep and figure in figures:
                sums.setdefault((day, category), [Decimal(0), Decimal(0)])[figures[figure]] += _number(item, name)
    return [
        CategoryFigures(date.fromisoformat(day), category, int(units), revenue.quantize(CENT))
        for (day, category), (units, revenue) in sorted(sums.items())
        if units > 0
    ]


def product_months(*, product_id: str) -> list[MonthFigures]:
    """Units and revenue of a product per month (months with sales only), oldest first."""
    pid = keys.bare(product_id, keys.PRODUCT)
    items = each_shard(schema.sum_shards(), lambda n: _all(schema.product_month_sums(pid, n, "")[0]))
    sums = _summed(items, (schema.UNITS, schema.REVENUE))
    return [
        MonthFigures(month, int(units), revenue.quantize(CENT))
        for month, (units, revenue) in sorted(sums.items())
        if units or revenue
    ]


def refunds_daily(*, start: date, end: date) -> list[RefundDay]:
    """How many refunds are dated each day of the range and their amount, zeros included: a Query per sum shard."""
    names = (schema.REFUNDS_COUNT, schema.REFUNDED, schema.RETURNS_REFUNDED)
    items = _day_items(start, end, schema.refunds_day)
    return [
        RefundDay(day, int(count), amount.quantize(CENT), for_returns.quantize(CENT))
        for day, (count, amount, for_returns) in _each_day(items, names, start, end)
    ]


@dataclass(frozen=True)
class Returned:
    """A product's units received back over all time, and how many of them were restocked or damaged."""

    units: int
    restocked: int
    damaged: int


def returned(*, product_id: str) -> Returned:
    """A product's units received back, restocked and damaged: one Query per sum shard of its months."""
    pid = keys.bare(product_id, keys.PRODUCT)
    items = each_shard(schema.sum_shards(), lambda n: _all(schema.returned_units(pid, n, "")[0]))
    units, restocked, damaged = (int(sum(_number(i, name) for i in items)) for name in schema.RETURNED_FIGURES)
    return Returned(units, restocked, damaged)


def categories() -> list[str]:
    """Every category some product holds, sorted ignoring case: one Query per sum shard."""
    items = each_shard(schema.sum_shards(), lambda n: _all(schema.category_counts(n, "")[0]))
    held: dict[str, Decimal] = {}
    for item in items:
        name = values.string(item, schema.SK) or ""
        held[name] = held.get(name, Decimal(0)) + _number(item, schema.PRODUCTS)
    return sorted((name for name, count in held.items() if count > 0), key=lambda name: (name.casefold(), name))
