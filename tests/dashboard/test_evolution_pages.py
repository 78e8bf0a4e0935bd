"""Pages of the model's evolution: orders due on a date, favourites on the order and customer pages."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest
from django.test import Client
from django.utils.timezone import now

from shop import access_patterns, orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows
from tests.dashboard.test_order import post

pytestmark = pytest.mark.django_db


@pytest.fixture
def order_id(shop_table: str) -> str:
    factories.shop_with(customers=1, products=2)
    oid = "f-" + uuid.uuid4().hex[:8]
    orders.order_place(
        customer_id="1001",
        lines=[OrderLine("2001", 1), OrderLine("2002", 1)],
        placed_at=datetime(2024, 5, 1, 12, 0),
        order_id=oid,
    )
    return oid


def test_orders_due_on_a_date(packer: Client, order_id: str, admin_view_table: str) -> None:
    sync_now()
    due = orders.order_collection(order_id).order.delivery_date
    response = packer.get(f"/orders/due/?date={due}")
    # its Query, then the customers' profiles (one BatchGetItem) for their names, and the view's summaries and
    # refunds (one BatchGetItem) for their payment and fulfilment
    assert response.status_code == 200 and response["X-DynamoDB-Calls"] == "3"
    assert f'data-order-id="{order_id}"' in response.content.decode() and "Ada Lovelace" in response.content.decode()
    assert f'data-order-id="{order_id}"' not in packer.get("/orders/due/?date=2001-01-01").content.decode()
    assert packer.get("/orders/due/?date=2024-02-30").status_code == 400
    assert packer.get(f"/orders/due/?date={due}&cursor=forged").status_code == 400


def test_orders_due_leave_out_delivered_and_cancelled_ones(
    packer: Client, order_id: str, admin_view_table: str
) -> None:
    # given a second and a third order of the customer: one delivered, one cancelled
    placed = datetime(2024, 5, 1, 12, 0)
    done, dropped = (f"{order_id}-{n}" for n in ("d", "c"))
    for oid in (done, dropped):
        orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], placed_at=placed, order_id=oid)
    orders.order_ship(order_id=done, shipped_at=placed)
    orders.order_deliver(order_id=done)
    orders.order_cancel(order_id=dropped)
    # when staff list the orders due on each one's date
    listed = {
        oid: csv_rows(packer.get(f"/orders/due/?date={orders.order_collection(oid).order.delivery_date}&format=csv"))
        for oid in (order_id, done, dropped)
    }
    # then only the order still expected is there, on any of those dates
    shown = {row[0] for rows in listed.values() for row in rows[1:]}
    assert shown == {order_id}


@pytest.mark.parametrize("query", ["", "?date=", "?cursor=abc", "?date=&cursor=abc"])
def test_orders_due_without_a_date_is_today(packer: Client, shop_table: str, query: str) -> None:
    # given no date (absent or empty) the page lists today's; a tampered cursor is refused
    response = packer.get(f"/orders/due/{query}")
    assert response.status_code == (400 if "cursor" in query else 200)
    if response.status_code == 200:
        assert now().date().isoformat() in response.content.decode()


def test_mark_and_unmark_a_favourite(packer: Client, staff: Client, order_id: str, admin_view_table: str) -> None:
    url = f"/orders/{order_id}/items/2001/favourite/"
    assert post(staff, url, {}).status_code == 403  # staff without the fulfilment group
    response = post(packer, url, {})
    assert response.status_code == 200 and "marked as" in response.content.decode()
    item = next(i for i in orders.order_collection(order_id).items if i.product_id == "2001")
    assert item.is_favourite
    favourites = access_patterns.favourites_for_customer(customer_id="1001").items
    assert [f.product_id for f in favourites] == ["2001"]
    assert "customer-favourites" in packer.get("/customers/1001/").content.decode()

    again = post(packer, url, {})
    assert again.status_code == 409  # the condition failed: already a favourite; the page says why
    assert "favourite" in again.content.decode().lower()

    assert post(packer, f"/orders/{order_id}/items/2001/unfavourite/", {}).status_code == 200
    assert access_patterns.favourites_for_customer(customer_id="1001").items == []
    assert post(packer, f"/orders/{order_id}/items/9999/favourite/", {}).status_code in (404, 409)
    assert packer.get(url).status_code == 405
