"""Fixtures of the returns tests: a shop with delivered orders, and the returns table beside it."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import pytest

from returns import services
from returns.models import ReturnItem
from shop import access_patterns as ap
from shop import orders
from shop.audit import Actor
from shop.orders import OrderLine
from tests import factories

PLACED = datetime(2026, 3, 2, 9, 0)
STAFF = Actor("rita", "req-1")
PRICES = {"2001": Decimal("10.50"), "2002": Decimal("11.50")}


@pytest.fixture
def two_customers_two_products(shop_table: str) -> None:
    """Customers 1001-1002, products 2001 (10.50) and 2002 (11.50), warehouses 301 (100 of each) and 302
    (none)."""
    factories.shop_with(customers=2, products=2, categories=("books",))
    factories.warehouse("302")


def delivered(order_id: str = "5001", lines: tuple[tuple[str, int], ...] = (("2001", 2), ("2002", 1))) -> str:
    """An order placed, shipped and delivered (paid in full by card: 32.50 for the default lines)."""
    orders.order_place(
        customer_id="1001",
        lines=[OrderLine(pid, qty) for pid, qty in lines],
        placed_at=PLACED,
        order_id=order_id,
    )
    orders.order_ship(order_id=order_id, shipped_at=PLACED + timedelta(days=1))
    orders.order_deliver(order_id=order_id)
    return order_id


def requested(order_id: str = "5001", return_id: str = "r1", units: int = 2) -> ReturnItem:
    """A REQUESTED return of ``units`` of product 2001 of a delivered order."""
    return services.return_request(
        order_id=order_id,
        lines=[services.Line("2001", units, "Arrived damaged")],
        requested_at=PLACED + timedelta(days=5),
        return_id=return_id,
    )


def received(order_id: str = "5001", return_id: str = "r1", units: int = 2) -> ReturnItem:
    """A return requested, approved and received into warehouse 301."""
    requested(order_id, return_id, units)
    services.return_approve(return_id=return_id, actor=STAFF)
    return services.return_receive(return_id=return_id, warehouse_id="301", actor=STAFF)


def stock(product_id: str, warehouse_id: str = "301") -> int | None:
    rows = {row.warehouse_id: row.quantity for row in ap.inventory_for_product(product_id=product_id).items}
    return rows.get(warehouse_id)
