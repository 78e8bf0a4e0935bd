"""A product's units sold per month on its page (the sync's counters, DynamoDB Local): chart, table and
``?list=months&format=csv``, months without sales shown as zeros, cancelled orders not counted, calls constant."""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from decimal import Decimal

import pytest
from django.test import Client

from adminview.tables import ADMIN_VIEW_TABLE
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]


def sell(order_id: str, when: datetime, quantity: int, *, cancel: bool = False) -> None:
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", quantity)], placed_at=when, order_id=order_id)
    if cancel:
        orders.order_cancel(order_id=order_id)


def test_units_sold_per_month_chart_table_and_csv(staff: Client, shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=1, products=2)  # each at 10.50
    sell("m1", datetime(2026, 1, 5, 9), 2)
    sell("m2", datetime(2026, 3, 1, 9), 1)
    sell("m3", datetime(2026, 3, 31, 23, 59), 3)
    sell("m4", datetime(2026, 3, 15, 9), 5, cancel=True)
    sync_now()

    response = staff.get("/products/2001/")
    assert response.status_code == 200
    months = [(m.month, m.units, m.revenue) for m in response.context["months"]]
    assert months == [
        ("2026-01", 2, Decimal("21.00")),
        ("2026-02", 0, Decimal("0.00")),
        ("2026-03", 4, Decimal("42.00")),
    ]
    html = response.content.decode()
    svg = html.split('id="chart-months"', 1)[1].split("</svg>", 1)[0]
    assert re.findall(r'data-key="([^"]+)"', svg) == ["2026-01", "2026-02", "2026-03"]
    assert 'id="list-months"' in html and 'href="/products/2001/?list=months&amp;format=csv"' in html

    rows = csv_rows(staff.get("/products/2001/?list=months&format=csv"))
    assert rows == [
        ["month", "units", "revenue"],
        ["2026-01", "2", "21.00"],
        ["2026-02", "0", "0.00"],
        ["2026-03", "4", "42.00"],
    ]
    assert staff.get("/products/2001/?list=months").status_code == 400  # the page shows every month already
    assert staff.get("/products/2002/").context["months"] == []  # nothing sold: "No sales yet."

    first = int(response["X-DynamoDB-Calls"])
    for n in range(6):
        sell(f"x{n}", datetime(2025, 1 + n, 10, 9), 1)
    sync_now()
    again = staff.get("/products/2001/")
    assert len(again.context["months"]) == 15
    # GetItem, stock and orders (a Query each), its latest changes (a Query), freshness, one Query per counter shard
    # of its sales and as many of its returned units, and one BatchGetItem of its order lines' buyers
    assert int(again["X-DynamoDB-Calls"]) == first == 3 + 1 + 1 + 4 + 4 + 1


def test_a_product_page_without_an_admin_view_says_why_and_shows_the_rest(
    staff: Client, shop_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ADMIN_VIEW_TABLE.model.Meta, "table_name", f"AdminView-none-{uuid.uuid4().hex[:8]}")
    factories.shop_with(customers=1, products=1)
    response = staff.get("/products/2001/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="months-problem"' in html and 'id="list-stock"' in html
