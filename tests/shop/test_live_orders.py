"""The demo's live orders on DynamoDB Local: new orders through ``order_place`` as the storefront, the queue left
to staff (nothing shipped, delivered or cancelled), other services' steps each round with their refusals skipped,
a bounded number of rounds."""

from __future__ import annotations

import random
import threading
from datetime import datetime

import pytest

from shop import live_orders, orders
from shop.audit import Actor
from shop.errors import OrderConflict
from shop.live_orders import STOREFRONT, LiveShop
from shop.models import Order, ShopItem
from tests import factories

pytestmark = pytest.mark.ddb_local


def place(order_id: str, day: int) -> None:
    orders.order_place(
        customer_id="1001", lines=[orders.OrderLine("2001", 1)], placed_at=datetime(2026, 3, day), order_id=order_id
    )


@pytest.fixture
def orders_in_each_state(shop_table: str) -> LiveShop:
    """Three customers and products; pending orders P2 (newer) and P1 (older), shipped S1, delivered D1."""
    factories.shop_with(customers=3, products=3)
    place("P2", 5)
    place("P1", 3)
    place("S1", 1)
    place("D1", 2)
    orders.order_ship(order_id="S1")
    orders.order_ship(order_id="D1")
    orders.order_deliver(order_id="D1")
    return live_orders.live_shop()


def status(order_id: str) -> str | None:
    return orders.order_collection(order_id).order.status


def test_the_live_shop_is_its_customers_products_and_open_orders_oldest_first(orders_in_each_state: LiveShop) -> None:
    assert orders_in_each_state == LiveShop(
        customers=["1001", "1002", "1003"],
        products=["2001", "2002", "2003"],
        pending=["P1", "P2"],
        shipped=["S1"],
        delivered=["D1"],
    )


def test_a_round_places_an_order_and_leaves_the_queue_to_staff(orders_in_each_state: LiveShop) -> None:
    # when a round runs
    done = live_orders.one_round(orders_in_each_state, random.Random(1), STOREFRONT)
    # then a new order waits behind the others, and nothing was shipped or delivered
    [placed] = done
    new = placed.removeprefix("placed order ")
    assert status(new) == "PENDING" and orders_in_each_state.pending == ["P1", "P2", new]
    assert (status("P1"), status("S1")) == ("PENDING", "SHIPPED")


def test_another_services_steps_run_each_round_and_a_refusal_skips_only_that_step(
    orders_in_each_state: LiveShop,
) -> None:
    seen: list[tuple[str, str]] = []

    def asks(orders_in_each_state: LiveShop, rng: random.Random, actor: Actor) -> str | None:
        seen.append((actor.username, orders_in_each_state.delivered[0]))
        return "asked"

    def refused(orders_in_each_state: LiveShop, rng: random.Random, actor: Actor) -> str | None:
        raise OrderConflict("D1", "DELIVERED", "order D1 cannot")

    def idle(orders_in_each_state: LiveShop, rng: random.Random, actor: Actor) -> str | None:
        return None

    done = live_orders.one_round(orders_in_each_state, random.Random(2), STOREFRONT, [refused, asks, idle])
    assert done[0].startswith("placed order ") and done[1].startswith("refused: ") and done[2:] == ["asked"]
    assert seen == [("storefront", "D1")]


def test_run_stops_after_its_rounds_or_when_told(orders_in_each_state: LiveShop) -> None:
    stop = threading.Event()
    assert live_orders.run(orders_in_each_state, stop=stop, every_s=0, rounds=4, rng=random.Random(3)) == 4
    placed = [i for i in ShopItem.scan() if isinstance(i, Order)]
    assert len(placed) == 4 + 4  # one new order a round
    stop.set()
    assert live_orders.run(orders_in_each_state, stop=stop, every_s=0, rng=random.Random(3)) == 0
