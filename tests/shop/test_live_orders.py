"""The demo's live orders on DynamoDB Local: new orders through ``order_place``, the oldest pending shipped and
the oldest shipped delivered as staff would, refusals skipped, a bounded number of rounds."""

from __future__ import annotations

import random
import threading
from datetime import datetime

import pytest

from shop import live_orders, orders
from shop.audit import Actor
from shop.live_orders import LiveShop
from shop.models import Order, ShopItem
from tests import factories

pytestmark = pytest.mark.ddb_local

DEMO = Actor("demo")


def place(order_id: str, day: int) -> None:
    orders.order_place(
        customer_id="1001", lines=[orders.OrderLine("2001", 1)], placed_at=datetime(2026, 3, day), order_id=order_id
    )


@pytest.fixture
def shop(shop_table: str) -> LiveShop:
    """Three customers and products; pending orders P2 (newer) and P1 (older), shipped S1."""
    factories.shop_with(customers=3, products=3)
    place("P2", 5)
    place("P1", 3)
    place("S1", 1)
    orders.order_ship(order_id="S1")
    return live_orders.live_shop()


def status(order_id: str) -> str | None:
    return orders.order_collection(order_id).order.status


def test_the_live_shop_is_its_customers_products_and_open_orders_oldest_first(shop: LiveShop) -> None:
    assert shop == LiveShop(
        customers=["1001", "1002", "1003"], products=["2001", "2002", "2003"], pending=["P1", "P2"], shipped=["S1"]
    )


def test_a_round_places_an_order_ships_the_oldest_pending_and_delivers_the_oldest_shipped(
    shop: LiveShop, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given every round ships and delivers
    monkeypatch.setattr(live_orders, "SHIP_CHANCE", 1.0)
    monkeypatch.setattr(live_orders, "DELIVER_CHANCE", 1.0)
    # when one round runs
    done = live_orders.one_round(shop, random.Random(1), DEMO)
    # then a new order waits, P1 is shipped with a carrier and tracking number, S1 is delivered, each by "demo"
    [new] = [oid for oid in shop.pending if oid not in ("P1", "P2")]
    assert done == [f"placed order {new}", "shipped order P1", "delivered order S1"]
    assert (status(new), status("P1"), status("P2"), status("S1")) == ("PENDING", "SHIPPED", "PENDING", "DELIVERED")
    [shipment] = orders.order_collection("P1").shipments
    assert shipment.carrier in live_orders.CARRIERS and shipment.tracking_number
    assert [e.user for e in orders.order_collection("P1").history] == ["demo"]
    assert shop.pending == ["P2", new] and shop.shipped == ["P1"]


def test_an_order_staff_moved_meanwhile_is_refused_and_the_round_goes_on(
    shop: LiveShop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_orders, "SHIP_CHANCE", 1.0)
    monkeypatch.setattr(live_orders, "DELIVER_CHANCE", 0.0)
    orders.order_cancel(order_id="P1")  # by a member of staff, after the demo started
    done = live_orders.one_round(shop, random.Random(2), DEMO)
    assert done[0].startswith("placed order ") and done[1].startswith("refused: order P1 is CANCELLED")
    assert status("P1") == "CANCELLED" and shop.pending[0] == "P2"  # not retried


def test_run_stops_after_its_rounds_or_when_told(shop: LiveShop) -> None:
    stop = threading.Event()
    assert live_orders.run(shop, actor=DEMO, stop=stop, every_s=0, rounds=4, rng=random.Random(3)) == 4
    placed = [i for i in ShopItem.scan() if isinstance(i, Order)]
    assert len(placed) == 3 + 4  # one new order a round
    stop.set()
    assert live_orders.run(shop, actor=DEMO, stop=stop, every_s=0, rng=random.Random(3)) == 0
