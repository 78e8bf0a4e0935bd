"""The numbers as a scan of the shop table implies them: the oracle the kept figures are compared with (written
apart from ``adminview.figures``, from the pages' contract)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

from adminview import number_reads
from adminview.table_walk import parallel_scan
from shop.models import ShopItem

STATUSES = ("PENDING", "SHIPPED", "DELIVERED", "CANCELLED")
_plain = TypeDeserializer()


def _items() -> list[dict[str, Any]]:
    raws: list[dict[str, Any]] = parallel_scan(ShopItem)
    return [{k: _plain.deserialize(v) for k, v in raw.items()} for raw in raws]


def expected() -> dict[str, Any]:
    """status counts, per-day rows and per-(day, category) rows, per-(product, month) rows, from a full scan."""
    items = _items()
    orders = {i["PK"]: i for i in items if i.get("EntityType") == "order"}
    status = {s: sum(1 for o in orders.values() if o.get("Status") == s) for s in STATUSES}
    days: dict[str, list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 4)  # orders, units, revenue, cancelled
    categories: dict[tuple[str, str], list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 2)
    months: dict[tuple[str, str], list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 2)
    for order in orders.values():
        if "Date" not in order:
            continue
        day = str(order["Date"])[:10]
        days[day][0] += 1
        if order.get("Status") == "CANCELLED":
            days[day][3] += 1
    for item in items:
        placed = orders.get(item["PK"])
        if item.get("EntityType") != "orderItem" or placed is None or "Date" not in placed:
            continue
        if placed.get("Status") == "CANCELLED":
            continue
        order = placed
        day = str(order["Date"])[:10]
        units = Decimal(str(item.get("Quantity", "0")))
        revenue = units * Decimal(str(item.get("Price", "0")))
        category = str(item.get("Category") or "").strip() or "uncategorized"
        days[day][1] += units
        days[day][2] += revenue
        categories[(day, category)][0] += units
        categories[(day, category)][1] += revenue
        months[(str(item["SK"])[2:], day[:7])][0] += units
        months[(str(item["SK"])[2:], day[:7])][1] += revenue
    return {"status": status, "days": dict(days), "categories": dict(categories), "months": dict(months)}


def assert_figures_match(start: date = date(2000, 1, 1), end: date | None = None) -> None:
    """Every kept figure equals the oracle's (status counts; every day with orders; every (day, category);
    every (product, month))."""
    oracle = expected()
    assert number_reads.status_counts() == oracle["status"]
    days = sorted(oracle["days"])
    if days:
        first, last = date.fromisoformat(days[0]), date.fromisoformat(days[-1])
        for chunk_start in _chunks(first, last):
            chunk_end = min(last, chunk_start + timedelta(days=365))
            for row in number_reads.daily(start=chunk_start, end=chunk_end):
                want = oracle["days"].get(row.day.isoformat(), [Decimal(0)] * 4)
                got = [row.orders, row.units, row.revenue, row.cancelled]
                assert got == [int(want[0]), int(want[1]), want[2].quantize(Decimal("0.01")), int(want[3])], row
            kept = {
                (r.day.isoformat(), r.category): [r.units, r.revenue]
                for r in number_reads.by_category(start=chunk_start, end=chunk_end)
            }
            want_categories = {
                k: [int(v[0]), v[1].quantize(Decimal("0.01"))]
                for k, v in oracle["categories"].items()
                if chunk_start.isoformat() <= k[0] <= chunk_end.isoformat() and v[0] > 0
            }
            assert kept == want_categories
    for product in {p for p, _month in oracle["months"]}:
        kept_months = {m.month: [m.units, m.revenue] for m in number_reads.product_months(product_id=product)}
        want_months = {
            month: [int(v[0]), v[1].quantize(Decimal("0.01"))]
            for (p, month), v in oracle["months"].items()
            if p == product and (v[0] or v[1])
        }
        assert kept_months == want_months, product


def _chunks(first: date, last: date) -> list[date]:
    starts, current = [], first
    while current <= last:
        starts.append(current)
        current += timedelta(days=366)
    return starts
