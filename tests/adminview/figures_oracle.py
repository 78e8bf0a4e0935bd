"""The numbers as scans of the shop and returns tables imply them: the oracle the kept figures are compared with
(written apart from ``adminview.figures`` and ``adminview.core.sources``, from the pages' contract and
``docs/returns.md``)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from adminview.reads import number_reads, totals
from adminview.repair.table_walk import parallel_scan
from returns.models import ReturnsItem
from shop.models import ShopItem

STATUSES = ("PENDING", "SHIPPED", "DELIVERED", "CANCELLED")


def _items(model: Any = ShopItem) -> list[dict[str, Any]]:
    return parallel_scan(model)  # decoded


def _day(text: object) -> str | None:
    day = str(text or "")[:10]
    try:
        return date.fromisoformat(day).isoformat()
    except ValueError:
        return None


def units_back(item: dict[str, Any]) -> dict[str, list[int]]:
    """Per product a return names, [units received back, restocked, damaged] (``docs/returns.md``): a line's
    ``Received`` and ``Restocked`` (absent: all received restocked); without ``Received``, all of the line when the
    return is RECEIVED, or REFUNDED unless it has a ``Refunded`` time and no ``Received`` one (never received)."""
    status = item.get("Status")
    whole = status == "RECEIVED" or (status == "REFUNDED" and ("Received" in item or "Refunded" not in item))
    back: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    if _day(item.get("Requested")) is None:
        return back
    for line in item.get("Lines") or []:
        quantity = int(Decimal(str(line.get("Quantity", "0"))))
        received = int(Decimal(str(line["Received"]))) if "Received" in line else quantity if whole else 0
        restocked = int(Decimal(str(line["Restocked"]))) if "Restocked" in line else received
        figures = back[str(line["ProductId"])]
        figures[0] += received
        figures[1] += restocked
        figures[2] += received - restocked
    return back


def expected_returns() -> dict[str, Any]:
    """From a scan of the returns table: per refund day, [refunds, amount, amount paying a return back]; per
    customer a refund names (``CustomerId``), the amount refunded; per product a return names, [units received
    back, restocked, damaged] (``units_back``)."""
    refunds: dict[str, list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 3)
    customers: dict[str, Decimal] = defaultdict(Decimal)
    returned: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for item in _items(ReturnsItem):
        if item.get("EntityType") == "refund" and str(item["SK"]).startswith("f#"):
            amount = Decimal(str(item.get("Amount", "0")))
            if item.get("CustomerId"):
                customers[str(item["CustomerId"])] += amount
            day = _day(item.get("Date"))
            if day is None:
                continue
            refunds[day][0] += 1
            refunds[day][1] += amount
            if item.get("ReturnId"):
                refunds[day][2] += amount
        elif item.get("EntityType") == "return":
            for product, figures in units_back(item).items():
                returned[product] = [a + b for a, b in zip(returned[product], figures, strict=True)]
    return {"refunds": dict(refunds), "customers": dict(customers), "returned": dict(returned)}


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
    every (product, month); every day with refunds; every product's returned units)."""
    assert_returns_figures_match()
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


def assert_returns_figures_match(products: tuple[str, ...] = ()) -> None:
    """Refunds per day (count, amount, the part for returns) over every day with refunds, what each customer a
    refund names was refunded, and units received back, restocked and damaged of every product a return names (and
    of ``products``, zeros included), equal the returns table's oracle."""
    oracle = expected_returns()
    days = sorted(oracle["refunds"])
    if days:
        first, last = date.fromisoformat(days[0]), date.fromisoformat(days[-1])
        for chunk_start in _chunks(first, last):
            chunk_end = min(last, chunk_start + timedelta(days=365))
            for row in number_reads.refunds_daily(start=chunk_start, end=chunk_end):
                want = oracle["refunds"].get(row.day.isoformat(), [Decimal(0)] * 3)
                got = [row.refunds, row.refunded, row.for_returns]
                assert got == [int(want[0]), *(v.quantize(Decimal("0.01")) for v in want[1:])], row
    for customer, amount in sorted(oracle["customers"].items()):
        assert totals.customer_totals(customer_id=customer).refunded == amount, customer
    for product in sorted(set(oracle["returned"]) | set(products)):
        back = number_reads.returned(product_id=product)
        assert [back.units, back.restocked, back.damaged] == oracle["returned"].get(product, [0, 0, 0]), product


def _chunks(first: date, last: date) -> list[date]:
    starts, current = [], first
    while current <= last:
        starts.append(current)
        current += timedelta(days=366)
    return starts
