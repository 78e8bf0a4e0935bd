"""``/orders/create/`` against DynamoDB Local: staff create an order paid or due, through the shop's own placing
(stock taken, the audit entry naming them, the confirmation written when asked), refused with a 400 naming what
is wrong, and only for the fulfilment group; it is then an order like any other, and the view stays clean."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from adminview.repair import rebuild
from dashboard.timeline import timeline
from shop import access_patterns as ap
from shop import orders
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csrf_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_products_in_stock(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=1, products=2, stock_each=10)


def create(client: Client, data: dict[str, str]) -> Any:
    return client.post("/orders/create/", data, headers={"X-CSRFToken": csrf_of(client)})


def test_a_paid_order_and_a_due_one(packer: Client, two_products_in_stock: None) -> None:
    form = packer.get("/orders/create/?products=2001,2002&customer_id=1001")
    assert form.status_code == 200 and 'name="quantity-2002"' in form.content.decode()
    paid = create(
        packer,
        {
            "customer_id": "1001",
            "quantity-2001": "2",
            "price-2001": "9.00",
            "payment": "paid",
            "reference": "ph-1",
            "notify": "yes",
        },
    )
    assert paid.status_code == 302
    oid = paid["Location"].rstrip("/").rsplit("/", 1)[1]
    found = packer.get(f"/orders/{oid}/?format=json").json()
    assert (found["status"], found["payment_status"], found["total"]) == ("PENDING", "paid", "18.00")
    collection = orders.order_collection(oid)
    assert [e.user for e in collection.history] == ["packer"]
    assert [n.kind for n in collection.notifications] == ["created"]
    assert ap.inventory_for_product(product_id="2001").items[0].quantity == 8
    rows = timeline(collection)
    assert {(r.event.value, r.user) for r in rows} == {("placed", "packer"), ("paid", "packer")}
    assert collection.order.ship_to is None  # none typed: it goes to the customer's address
    due = create(
        packer,
        {"customer_id": "1001", "quantity-2002": "1", "payment": "due", "city": "Oslo", "country": "Norway"},
    )
    assert due.status_code == 302
    due_id = due["Location"].rstrip("/").rsplit("/", 1)[1]
    assert packer.get(f"/orders/{due_id}/?format=json").json()["payment_status"] == "unpaid"
    due_collection = orders.order_collection(due_id)
    assert due_collection.notifications == []
    ship_to = due_collection.order.ship_to
    assert ship_to is not None and (ship_to.street, ship_to.city, ship_to.country) == (None, "Oslo", "Norway")
    assert "Oslo" in packer.get(f"/orders/{due_id}/slip/").content.decode()
    sync_now()
    assert oid in packer.get("/orders/pending/").content.decode()
    assert rebuild.verify(settle_s=0).clean


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"customer_id": "9999", "quantity-2001": "1", "payment": "due"}, "no customer"),
        ({"customer_id": "1001", "quantity-2999": "1", "payment": "due"}, "no product"),
        ({"customer_id": "1001", "quantity-2001": "0", "payment": "due"}, "at least one line"),
        ({"customer_id": "1001", "quantity-2001": "x", "payment": "due"}, "whole number"),
        ({"customer_id": "1001", "quantity-2001": "1", "price-2001": "1.234", "payment": "due"}, "not an amount"),
        ({"customer_id": "1001", "quantity-2001": "11", "payment": "due"}, "product 2001"),
        ({"customer_id": "1001", "quantity-2001": "1", "payment": "paid"}, "reference"),
        ({"customer_id": "1001", "quantity-2001": "1", "payment": "due", "country": "Atlantis"}, "Atlantis is not"),
        ({"customer_id": "1001", "quantity-2001": "1", "payment": "due", "city": "x" * 201}, "at most 200 characters"),
    ],
)
def test_bad_input_is_400_saying_what(
    packer: Client, two_products_in_stock: None, data: dict[str, str], said: str
) -> None:
    response = create(packer, data)
    assert response.status_code == 400 and said in response.content.decode()


def test_only_the_fulfilment_group_creates(staff: Client, two_products_in_stock: None) -> None:
    assert staff.get("/orders/create/").status_code == 403
    assert staff.post("/orders/create/", {"customer_id": "1001"}).status_code == 403
