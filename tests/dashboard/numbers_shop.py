"""A shop with categorised orders over a few weeks, for the numbers pages' tests, and what a scan of it implies
for a category's orders (the rest of the oracle is ``tests.adminview.figures_oracle``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from adminview.repair.table_walk import parallel_scan
from shop import orders
from shop.models import ShopItem
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now

TODAY = datetime(2026, 3, 10, 12, 0)  # the pages' "now" in these tests
# a category name with what a URL must quote (a space, "&", "/"); a product without a category counts as
# "uncategorized"
ODD_CATEGORY = "Home & Garden/Tools"
CATEGORIES = ["Books", ODD_CATEGORY, None, "Kitchen"]


def frozen_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages' clock stopped at ``TODAY`` (ranges without from/to end on its day)."""
    for module in ("views.home", "range_pages", "views.categories", "views.products"):
        monkeypatch.setattr(f"dashboard.{module}.now", lambda: TODAY)


def catalogue() -> None:
    factories.shop_with(customers=3, products=4, stock_each=100_000, categories=CATEGORIES)


def place(count: int, *, tag: str, days_back: int = 40) -> list[str]:
    """``count`` orders spread over the ``days_back`` days up to ``TODAY``; every fifth shipped, every seventh
    cancelled, every eleventh delivered."""
    ids = []
    for n in range(count):
        when = TODAY - timedelta(days=(n * 7) % days_back, hours=n % 5)
        lines = [OrderLine(f"200{1 + n % 4}", 1 + n % 3), OrderLine(f"200{1 + (n + 1) % 4}", 1)]
        oid = orders.order_place(
            customer_id=f"100{1 + n % 3}", lines=lines, order_id=f"{tag}{n}", placed_at=when
        ).order_id
        if n % 7 == 3:
            orders.order_cancel(order_id=oid)
        elif n % 5 == 1 or n % 11 == 2:
            orders.order_ship(order_id=oid)
            if n % 11 == 2:
                orders.order_deliver(order_id=oid)
        ids.append(oid)
    return ids


def _items() -> list[dict[str, Any]]:
    return parallel_scan(ShopItem)  # decoded


def category_orders(category: str, start: date, end: date) -> dict[str, tuple[str, int, Decimal]]:
    """Per order placed in ``start``..``end`` with lines of ``category``: its status and those lines' units and
    revenue (cancelled orders included: the list shows them, the numbers do not count them)."""
    items = _items()
    placed = {i["PK"]: i for i in items if i.get("EntityType") == "order"}
    found: dict[str, list[Any]] = defaultdict(lambda: ["", 0, Decimal(0)])
    for item in items:
        order = placed.get(item["PK"])
        if item.get("EntityType") != "orderItem" or order is None:
            continue
        day = date.fromisoformat(str(order["Date"])[:10])
        name = str(item.get("Category") or "").strip() or "uncategorized"
        if name != category or not start <= day <= end:
            continue
        units = Decimal(str(item["Quantity"]))
        row = found[str(order["PK"])[2:]]
        row[0] = order.get("Status")
        row[1] += int(units)
        row[2] += units * Decimal(str(item["Price"]))
    return {oid: (status, units, revenue) for oid, (status, units, revenue) in found.items()}


@contextmanager
def seeded(tag: str) -> Iterator[list[str]]:
    """The catalogue and 24 orders (ids ``<tag><n>``) synced into the view, the pages' clock stopped meanwhile: a
    module's shop, seeded once."""
    with pytest.MonkeyPatch.context() as patch:
        frozen_now(patch)
        catalogue()
        placed = place(24, tag=tag)
        sync_now()
        yield placed
