"""The demo's customers' return requests (``returns.live``) on DynamoDB Local: now and then one unit of a delivered
order comes back as a REQUESTED return by the storefront, each order asked about once."""

from __future__ import annotations

import random

import pytest

from returns import access_patterns, live
from returns.keys import ReturnReason
from shop import orders
from shop.live_orders import STOREFRONT, LiveShop
from shop.orders import OrderLine

pytestmark = pytest.mark.ddb_local


def test_a_delivered_order_gets_a_return_request_by_the_storefront(
    two_customers_two_products: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a delivered order of 2 x 2001
    order = orders.order_place(customer_id="1001", lines=[OrderLine("2001", 2)])
    orders.order_ship(order_id=order.order_id)
    orders.order_deliver(order_id=order.order_id)
    live_shop = LiveShop(customers=["1001"], products=["2001"], delivered=[order.order_id])
    # when the step never draws a return, nothing happens
    monkeypatch.setattr(live, "RETURN_CHANCE", 0.0)
    assert live.request_a_return(live_shop, random.Random(1), STOREFRONT) is None
    # and when it does, one unit comes back, requested, and the order is not asked about again
    monkeypatch.setattr(live, "RETURN_CHANCE", 1.0)
    said = live.request_a_return(live_shop, random.Random(1), STOREFRONT)
    assert said is not None and said.endswith(f"requested of order {order.order_id}")
    [found] = access_patterns.returns_for_order(order_id=order.order_id).items
    assert found.status == "REQUESTED" and [(line.product_id, line.quantity) for line in found.lines or []] == [
        ("2001", 1)
    ]
    assert all(ReturnReason(line.reason) is not ReturnReason.OTHER for line in found.lines or [])
    assert live_shop.delivered == [] and live.request_a_return(live_shop, random.Random(1), STOREFRONT) is None
