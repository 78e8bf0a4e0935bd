"""``/orders/<oid>/edit/`` against DynamoDB Local: a paid order edited down refunds the difference at once, stock
and the total follow, a line is added, a stale form or an order no longer pending is 409, bad quantities 400; the
admin view's numbers follow and ``verify`` stays clean."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from django.test import Client

from adminview.repair import rebuild
from returns import access_patterns as rap
from shop import access_patterns as ap
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csrf_of, csv_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def order(shop_table: str, admin_view_table: str) -> str:
    """Order 66: 3 x 2001 and 1 x 2002 at 10.50 each, paid 42.00 by card."""
    factories.shop_with(customers=1, products=3, stock_each=10)
    lines = [OrderLine("2001", 3), OrderLine("2002", 1)]
    orders.order_place(customer_id="1001", lines=lines, placed_at=datetime(2026, 3, 2), order_id="66")
    return "66"


def edit(client: Client, data: dict[str, str]) -> Any:
    return client.post("/orders/66/edit/", data, headers={"X-CSRFToken": csrf_of(client)})


def stock(pid: str) -> int:
    return ap.inventory_for_product(product_id=pid).items[0].quantity


def test_a_paid_order_edited_down_refunds_the_difference_and_the_view_follows(packer: Client, order: str) -> None:
    assert packer.get("/orders/66/edit/").status_code == 200
    sync_now()
    # when one unit of 2001 goes, 2002 is removed, and 2 x 2003 are added
    response = edit(
        packer,
        {
            "expected_version": "1",
            "quantity-2001": "2",
            "quantity-2002": "0",
            "add_product": "2003",
            "add_quantity": "1",
            "notify": "yes",
        },
    )
    assert response.status_code == 302
    found = packer.get("/orders/66/?format=json").json()
    assert (found["total"], found["paid"], found["refunded"]) == ("31.50", "42.00", "10.50")
    assert found["payment_status"] == "partially_refunded"
    assert [(line["product_id"], line["quantity"]) for line in found["lines"]] == [("2001", 2), ("2003", 1)]
    assert (stock("2001"), stock("2002"), stock("2003")) == (8, 10, 9)
    (refund,) = rap.money_of_order(order_id="66", consistent=True)[1]
    assert refund.reference == "order edit" and refund.return_id is None
    assert [n.kind for n in orders.order_collection("66").notifications] == ["edited"]
    # then a form rendered before that edit is stale
    stale = edit(packer, {"expected_version": "1", "quantity-2001": "1"})
    assert stale.status_code == 409, stale.content.decode()[-3000:]
    sync_now()
    totals = packer.get("/customers/1001/?format=json").json()
    assert (totals["spent"], totals["refunded"]) == ("31.50", "10.50")
    assert rebuild.verify(settle_s=0).clean


def test_bad_edits_are_400_and_a_shipped_order_409(packer: Client, order: str) -> None:
    assert edit(packer, {"expected_version": "1", "quantity-2001": "0", "quantity-2002": "0"}).status_code == 400
    assert edit(packer, {"expected_version": "1", "quantity-2001": "11"}).status_code == 400  # too little stock
    assert edit(packer, {"expected_version": "1", "quantity-2001": "x"}).status_code == 400
    assert edit(packer, {"expected_version": "1", "add_product": "2001", "add_quantity": "1"}).status_code == 400
    orders.order_ship(order_id="66", quantities={"2001": 2})
    below = edit(packer, {"expected_version": "2", "quantity-2001": "1"})
    assert below.status_code == 400 and "have shipped already" in below.content.decode()
    orders.order_ship(order_id="66")
    assert packer.get("/orders/66/edit/").status_code == 409
    assert edit(packer, {"expected_version": "3", "quantity-2001": "3"}).status_code == 409


def test_only_the_fulfilment_group_edits(staff: Client, order: str) -> None:
    assert staff.get("/orders/66/edit/").status_code == 403


def test_an_address_only_edit_ships_there_and_changes_no_money(packer: Client, order: str) -> None:
    # the form shows where the order ships now: its customer's address
    form = packer.get("/orders/66/edit/").content.decode()
    assert 'value="Main Street 1"' in form and 'value="41111"' in form
    # when only the city and the country change (the other fields left out of the POST)
    response = edit(packer, {"expected_version": "1", "city": "Oslo", "country": "Norway", "notify": "yes"})
    assert response.status_code == 302, response.content.decode()[-2000:]
    found = orders.order_collection("66")
    assert found.order.ship_to is not None
    assert (found.order.ship_to.street, found.order.ship_to.city, found.order.ship_to.country) == (
        "Main Street 1",
        "Oslo",
        "Norway",
    )
    assert found.notifications == [] and rap.money_of_order(order_id="66", consistent=True)[1] == []
    assert packer.get("/orders/66/?format=json").json()["total"] == "42.00"
    assert [c.attribute for c in found.history[0].changes or []] == ["ShipTo.City", "ShipTo.Country"]
    # then the order page, the pick list, the slip and the shipment go there
    assert "Oslo" in packer.get("/orders/66/").content.decode()
    sync_now()
    pick = str(csv_rows(packer.get("/orders/pending/?format=csv&lines=1")))
    assert "Oslo" in pick and "Goteborg" not in pick
    assert "Oslo" in packer.get("/orders/66/slip/").content.decode()
    orders.order_ship(order_id="66")
    assert {s.address.city for s in orders.order_collection("66").shipments if s.address} == {"Oslo"}
    sync_now()
    assert rebuild.verify(settle_s=0).clean


def test_a_bad_address_is_400_naming_the_field_and_a_stale_one_409(packer: Client, order: str) -> None:
    bad = edit(packer, {"expected_version": "1", "country": "Atlantis"})
    assert bad.status_code == 400 and "country" in bad.content.decode().lower()
    long = edit(packer, {"expected_version": "1", "zip": "9" * 201})
    assert long.status_code == 400 and "zip" in long.content.decode().lower()
    same = edit(packer, {"expected_version": "1", "city": "Goteborg"})
    assert same.status_code == 400  # nothing to change
    assert edit(packer, {"expected_version": "1", "city": "Oslo"}).status_code == 302
    assert edit(packer, {"expected_version": "1", "city": "Bergen"}).status_code == 409
    assert orders.order_collection("66").order.ship_to.city == "Oslo"
