"""The numbers pages in the benchmark: ``/stats/status/``, ``/stats/daily/`` over 30 and 366 days,
``/stats/categories/`` and ``/stats/refunds/`` over 30 days, each with its data layer (``adminview.reads.number_reads``,
the page's freshness line), and the naive way for the shop's figures: one full Scan of the shop table that sums
them (``Sums``).

The ranges end on the seed's last day (``shop.seeding.DEFAULT_UNTIL``), so they hold the newest orders.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from adminview.core.numbers import decimal_of
from adminview.core.schema import category_name
from adminview.reads import number_reads, sync_freshness
from dynamo import ddb_json
from shop import keys, seeding
from shop.keys import OrderStatus

LAST_DAY = seeding.DEFAULT_UNTIL - timedelta(days=1)
MONTH = (LAST_DAY - timedelta(days=29), LAST_DAY)
YEAR = (LAST_DAY - timedelta(days=365), LAST_DAY)
SUMMED = ("stats_status", "stats_daily_30", "stats_daily_366", "stats_categories")  # what the naive Scan sums
PAGES = (*SUMMED, "stats_refunds_30")
ENTITIES = ("order", "orderItem")


def _range(days: tuple[date, date]) -> str:
    return f"?from={days[0].isoformat()}&to={days[1].isoformat()}"


def urls() -> dict[str, str]:
    return {
        "stats_status": "/stats/status/",
        "stats_daily_30": "/stats/daily/" + _range(MONTH),
        "stats_daily_366": "/stats/daily/" + _range(YEAR),
        "stats_categories": "/stats/categories/" + _range(MONTH),
        "stats_refunds_30": "/stats/refunds/" + _range(MONTH),
    }


def work() -> dict[str, Callable[[], Any]]:
    """What each page asks of DynamoDB: the view's kept figures and the freshness line, as the views do."""

    def status() -> None:
        number_reads.status_counts()
        sync_freshness.freshness()

    def daily(days: tuple[date, date]) -> Callable[[], None]:
        def read() -> None:
            number_reads.daily(start=days[0], end=days[1])
            sync_freshness.freshness()

        return read

    def categories() -> None:
        number_reads.by_category(start=MONTH[0], end=MONTH[1])
        sync_freshness.freshness()

    def refunds() -> None:
        number_reads.refunds_daily(start=MONTH[0], end=MONTH[1])
        sync_freshness.freshness()

    return {
        "stats_refunds_30": refunds,
        "stats_status": status,
        "stats_daily_30": daily(MONTH),
        "stats_daily_366": daily(YEAR),
        "stats_categories": categories,
    }


class Sums:
    """The pages' figures from the shop table's orders and order items, fed one scanned item at a time (in any
    order: an order item may come before its order)."""

    def __init__(self) -> None:
        self.orders: dict[str, tuple[str | None, str | None]] = {}  # order id -> (status, day)
        self.lines: dict[str, list[tuple[str, Decimal, Decimal]]] = {}  # order id -> (category, units, revenue)

    @staticmethod
    def wants(item: Mapping[str, Any]) -> bool:
        return ddb_json.string(item, "EntityType") in ENTITIES

    def add(self, item: Mapping[str, Any]) -> None:
        order_id = keys.without_prefix(ddb_json.string(item, "PK"), keys.ORDER)
        entity = ddb_json.string(item, "EntityType")
        if order_id is None:
            return
        if entity == "order":
            placed = ddb_json.text(item, "Date")
            self.orders[order_id] = (ddb_json.text(item, "Status"), placed[:10] if placed else None)
        elif entity == "orderItem":
            units = decimal_of(ddb_json.text(item, "Quantity"))
            revenue = units * decimal_of(ddb_json.text(item, "Price"))
            category = category_name(ddb_json.text(item, "Category"))
            self.lines.setdefault(order_id, []).append((category, units, revenue))

    def status_counts(self) -> dict[str, int]:
        return {s: sum(1 for status, _day in self.orders.values() if status == s) for s in OrderStatus}

    def daily(self, days: tuple[date, date]) -> dict[str, tuple[int, int, int, Decimal]]:
        """Day -> (orders, cancelled, units, revenue) for every day of the range."""
        out: dict[str, list[Decimal]] = {}
        for offset in range((days[1] - days[0]).days + 1):
            out[(days[0] + timedelta(days=offset)).isoformat()] = [Decimal(0)] * 4
        for order_id, (status, day) in self.orders.items():
            if day not in out:
                continue
            row = out[day]
            row[0] += 1
            if status == "CANCELLED":
                row[1] += 1
                continue
            for _category, units, revenue in self.lines.get(order_id, []):
                row[2] += units
                row[3] += revenue
        return {d: (int(r[0]), int(r[1]), int(r[2]), r[3].quantize(number_reads.CENT)) for d, r in out.items()}

    def categories(self, days: tuple[date, date]) -> dict[tuple[str, str], tuple[int, Decimal]]:
        """(day, category) -> (units, revenue), for those with units sold."""
        out: dict[tuple[str, str], list[Decimal]] = {}
        first, last = days[0].isoformat(), days[1].isoformat()
        for order_id, (status, day) in self.orders.items():
            if day is None or not first <= day <= last or status == "CANCELLED":
                continue
            for category, units, revenue in self.lines.get(order_id, []):
                row = out.setdefault((day, category), [Decimal(0), Decimal(0)])
                row[0] += units
                row[1] += revenue
        return {k: (int(r[0]), r[1].quantize(number_reads.CENT)) for k, r in out.items() if r[0] > 0}

    def figures(self) -> dict[str, Any]:
        """Everything the four pages show."""
        return {
            "status": self.status_counts(),
            "daily_366": self.daily(YEAR),
            "categories": self.categories(MONTH),
        }


def kept_figures() -> dict[str, Any]:
    """The same figures as the pages read them from the view (to check the Scan's against; not timed)."""
    return {
        "status": number_reads.status_counts(),
        "daily_366": {
            r.day.isoformat(): (r.orders, r.cancelled, r.units, r.revenue)
            for r in number_reads.daily(start=YEAR[0], end=YEAR[1])
        },
        "categories": {
            (r.day.isoformat(), r.category): (r.units, r.revenue)
            for r in number_reads.by_category(start=MONTH[0], end=MONTH[1])
        },
    }
