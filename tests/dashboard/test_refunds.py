"""Refunds per day (``/stats/refunds/``) and the home page's net revenue, from the admin view synced from both
tables' streams."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client

from returns import services
from shop import orders
from shop.audit import Actor
from shop.orders import OrderLine
from shop.timestamps import now
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def cancelled_today(shop_table: str, admin_view_table: str) -> None:
    """Two orders placed now (10.50 and 21.00), the first cancelled: refunded 10.50 today."""
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="6001", placed_at=now())
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 2)], order_id="6002", placed_at=now())
    services.order_cancel_with_refund(order_id="6001", actor=Actor("rita"))
    sync_now()


def test_refunds_per_day_as_csv_every_day_zeros_included(staff: Client, cancelled_today: None) -> None:
    today = now().date()
    start = today - timedelta(days=2)
    rows = csv_rows(staff.get(f"/stats/refunds/?from={start}&to={today}&format=csv"))
    assert rows == [
        ["date", "refunds", "refunded"],
        [start.isoformat(), "0", "0.00"],
        [(start + timedelta(days=1)).isoformat(), "0", "0.00"],
        [today.isoformat(), "1", "10.50"],
    ]


def test_refunds_page_is_a_chart_and_its_table(staff: Client, cancelled_today: None) -> None:
    response = staff.get("/stats/refunds/")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="chart-refunds"' in html and 'id="chart-refunded"' in html and 'id="refunds"' in html
    assert len(response.context["rows"]) == 30  # the last 30 days by default


@pytest.mark.parametrize("query", ["from=2026-01-01&to=2027-01-02", "from=someday", "to=2026-02-30", "format=xls"])
def test_a_bad_range_is_400(staff: Client, shop_table: str, admin_view_table: str, query: str) -> None:
    response = staff.get(f"/stats/refunds/?{query}")
    assert response.status_code == 400 and b"Traceback" not in response.content
    if "format" not in query:
        assert staff.get(f"/stats/refunds/?{query}&format=csv").status_code == 400


def test_the_home_page_takes_only_refunds_for_returned_goods_off_the_revenue(
    staff: Client, cancelled_today: None
) -> None:
    # given today's revenue 21.00 (the cancelled order's 10.50 never counted) and its refund of 10.50
    periods = staff.get("/").context["periods"]
    assert [(p.days, p.revenue, p.refunded, p.net) for p in periods] == [
        (days, Decimal("21.00"), Decimal("10.50"), Decimal("21.00")) for days in (1, 7, 30)
    ]
    # when the other order is delivered, one unit comes back and is refunded
    orders.order_ship(order_id="6002")
    orders.order_deliver(order_id="6002")
    services.return_request(order_id="6002", lines=[services.Line("2001", 1, "too big")], return_id="r1")
    services.return_approve(return_id="r1")
    services.return_receive(return_id="r1", warehouse_id="301")
    services.return_refund(return_id="r1", amount="10.50", reference="PSP-1")
    sync_now()
    # then that refund, and only it, comes off the revenue
    periods = staff.get("/").context["periods"]
    assert [(p.revenue, p.refunded, p.net) for p in periods] == [
        (Decimal("21.00"), Decimal("21.00"), Decimal("10.50")) for _days in (1, 7, 30)
    ]
