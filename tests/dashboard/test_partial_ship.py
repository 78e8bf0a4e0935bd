"""Shipping part of an order from its page against DynamoDB Local: ``quantity-<pid>`` ships that many units, the
order stays PENDING (and listed as pending) until every unit has shipped, more than is left is 400, and a partly
shipped order cannot be cancelled (409); the admin view stays verifiably clean."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from django.test import Client

from adminview.repair import rebuild
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csrf_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def order(shop_table: str, admin_view_table: str) -> str:
    """Order 88: 3 x 2001 and 1 x 2002."""
    factories.shop_with(customers=1, products=2)
    lines = [OrderLine("2001", 3), OrderLine("2002", 1)]
    orders.order_place(customer_id="1001", lines=lines, placed_at=datetime(2026, 3, 2), order_id="88")
    return "88"


def ship(client: Client, data: dict[str, str]) -> Any:
    return client.post("/orders/88/ship/", data, headers={"X-CSRFToken": csrf_of(client), "HX-Request": "true"})


def state(client: Client) -> tuple[str, str, list[int]]:
    found = client.get("/orders/88/?format=json").json()
    return found["status"], found["fulfilment_status"], [line["shipped"] for line in found["lines"]]


def test_two_of_three_then_the_rest(packer: Client, order: str) -> None:
    # when two of the three units of 2001 ship, and 2002 not at all
    assert ship(packer, {"quantity-2001": "2", "quantity-2002": "0", "tracking_number": "A1"}).status_code == 200
    assert state(packer) == ("PENDING", "partially_fulfilled", [2, 0])
    html = packer.get("/orders/88/").content.decode()
    assert "2 / 3" in html and 'name="quantity-2001" value="1"' in html
    assert "Cancel order" not in html  # offered only where it can be taken
    # then more than is left is refused, and the order cannot be cancelled
    too_many = ship(packer, {"quantity-2001": "2"})
    assert too_many.status_code == 400 and "1 of product 2001 left to ship" in too_many.content.decode()
    cancel = packer.post("/orders/88/cancel/", {}, headers={"X-CSRFToken": csrf_of(packer)})
    assert cancel.status_code == 409 and "partly shipped" in cancel.content.decode()
    sync_now()
    assert "88" in packer.get("/orders/pending/").content.decode()
    # when the rest ships (no quantities: every unit left)
    assert ship(packer, {"tracking_number": "A2"}).status_code == 200
    assert state(packer) == ("SHIPPED", "fulfilled", [3, 1])
    collection = orders.order_collection("88")
    assert sorted((i.product_id, i.quantity) for i in collection.shipment_items) == [
        ("2001", 1),
        ("2001", 2),
        ("2002", 1),
    ]
    sync_now()
    assert rebuild.verify(settle_s=0).clean


def test_a_product_the_order_lacks_or_a_bad_quantity_is_400(packer: Client, order: str) -> None:
    assert ship(packer, {"quantity-2999": "1"}).status_code == 400
    assert ship(packer, {"quantity-2001": "-1"}).status_code == 400
    assert ship(packer, {"quantity-2001": "0"}).status_code == 400  # nothing to ship
    assert state(packer) == ("PENDING", "unfulfilled", [0, 0])
