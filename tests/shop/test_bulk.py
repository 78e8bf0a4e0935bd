"""Bulk actions on DynamoDB Local: one conditional transaction per order, every order gets an outcome."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import pytest

from shop import bulk, orders
from shop.audit import Actor
from shop.errors import Busy, InvalidInput
from shop.orders import OrderLine
from tests import factories

pytestmark = pytest.mark.ddb_local


def place(count: int) -> list[str]:
    factories.shop_with(customers=2, products=2, stock_each=10_000)
    tag = uuid.uuid4().hex[:6]
    ids = []
    for n in range(count):
        oid = f"k{n}-{tag}"
        orders.order_place(
            customer_id=str(1001 + n % 2),
            lines=[OrderLine(str(2001 + n % 2), 1)],
            placed_at=datetime(2026, 1, 1) + timedelta(minutes=n),
            order_id=oid,
        )
        ids.append(oid)
    return ids


def trail_size(order_ids: list[str]) -> int:
    return sum(len(orders.order_collection(oid).history) for oid in order_ids)


def test_bulk_ship_of_50_with_5_changed_elsewhere(shop_table: str) -> None:
    ids = place(50)
    elsewhere = ids[::10]
    for oid in elsewhere:
        orders.order_cancel(order_id=oid)  # another member of staff, on another screen (no trail entry)
    outcomes = bulk.run("ship", ids, actor=Actor("packer", "req-bulk"), workers=8)
    assert [o.order_id for o in outcomes] == ids  # every order, in the order given
    done = [o for o in outcomes if o.done]
    refused = [o for o in outcomes if o.code == 409]
    assert len(done) == 45 and len(refused) == 5
    assert {o.order_id for o in refused} == set(elsewhere)
    assert all("CANCELLED" in o.message for o in refused)
    assert trail_size(ids) == 45
    for oid in ids:
        status = orders.order_collection(oid).order.status
        assert status == ("CANCELLED" if oid in elsewhere else "SHIPPED")


def test_throttled_or_contended_orders_are_503_and_untouched(shop_table: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = place(3)
    real = orders.order_deliver

    def busy_on_second(*, order_id: str, actor: Actor | None = None) -> object:
        if order_id == ids[1]:
            raise Busy("held by another transaction")
        return real(order_id=order_id, actor=actor)

    for oid in ids:
        orders.order_ship(order_id=oid)
    monkeypatch.setitem(bulk.ACTIONS, "deliver", busy_on_second)
    outcomes = bulk.run("deliver", ids, actor=Actor("driver"))
    assert [o.code for o in outcomes] == [200, 503, 200]
    assert orders.order_collection(ids[1]).order.status == "SHIPPED"
    assert trail_size(ids) == 2


def test_a_callers_change_replaces_the_actions_own(shop_table: str) -> None:
    # given two pending orders and a caller's cancel (which also notes what it cancelled)
    ids = place(2)
    cancelled: list[str] = []

    def cancel_and_note(*, order_id: str, actor: Actor | None = None) -> object:
        cancelled.append(order_id)
        return orders.order_cancel(order_id=order_id, actor=actor)

    # when they are cancelled in bulk with it, then it changed each order, with the same outcomes
    outcomes = bulk.run("cancel", ids, actor=Actor("packer"), change=cancel_and_note)
    assert [o.code for o in outcomes] == [200, 200] and sorted(cancelled) == sorted(ids)
    assert [orders.order_collection(oid).order.status for oid in ids] == ["CANCELLED"] * 2


def test_unknown_orders_are_404_and_bad_input_is_refused(shop_table: str) -> None:
    [oid] = place(1)
    outcomes = bulk.run("cancel", [oid, "nope", oid], actor=Actor("packer"))
    assert [(o.order_id, o.code) for o in outcomes] == [(oid, 200), ("nope", 404)]
    with pytest.raises(InvalidInput):
        bulk.run("explode", [oid])
    with pytest.raises(InvalidInput):
        bulk.run("ship", [])
    with pytest.raises(InvalidInput):
        bulk.run("ship", ["bad id!"])


def test_bulk_ship_puts_one_carrier_on_all_and_each_order_its_tracking_number(shop_table: str) -> None:
    # given three pending orders
    ids = place(3)
    # when they ship with one carrier, and tracking numbers for two of them
    outcomes = bulk.run(
        "ship",
        ids,
        actor=Actor("packer"),
        carrier="PostNord",
        tracking_numbers={ids[0]: " PN-1 ", f"o#{ids[2]}": "PN-3"},
    )
    # then every shipment has the carrier and the numbers went to their own orders
    assert [o.code for o in outcomes] == [200, 200, 200]
    shipped = [(s.carrier, s.tracking_number) for oid in ids for s in orders.order_collection(oid).shipments]
    assert shipped == [("PostNord", "PN-1"), ("PostNord", None), ("PostNord", "PN-3")]


def test_bulk_ship_gives_each_shipment_of_a_split_order_the_number_of_its_warehouse(shop_table: str) -> None:
    # given a pending order of products from warehouses 301 and 302, and another from 301
    ids = place(1)
    factories.warehouse("302")
    factories.product("2003")
    factories.stock("2003", "302", 5)
    split = f"split-{ids[0]}"
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1), OrderLine("2003", 1)], order_id=split)
    # when both ship, the split one with a number per warehouse
    outcomes = bulk.run(
        "ship",
        [ids[0], split],
        actor=Actor("packer"),
        tracking_numbers={ids[0]: "ONE"},
        warehouse_tracking={split: {"301": "S-301", "302": "S-302"}},
    )
    # then each shipment has its own number
    assert [o.code for o in outcomes] == [200, 200]
    shipped = {(s.warehouse_id, s.tracking_number) for s in orders.order_collection(split).shipments}
    assert shipped == {("301", "S-301"), ("302", "S-302")}
    assert [s.tracking_number for s in orders.order_collection(ids[0]).shipments] == ["ONE"]


def test_one_bad_tracking_number_refuses_the_whole_request_before_any_write(shop_table: str) -> None:
    ids = place(3)
    with pytest.raises(InvalidInput, match=f"tracking number of order {ids[2]} is at most 100"):
        bulk.run("ship", ids, actor=Actor("packer"), tracking_numbers={ids[2]: "x" * 101})
    with pytest.raises(InvalidInput, match="carrier is at most 100"):
        bulk.run("ship", ids, actor=Actor("packer"), carrier="x" * 101)
    assert [orders.order_collection(oid).order.status for oid in ids] == ["PENDING"] * 3
    assert trail_size(ids) == 0


def test_a_carrier_goes_with_shipping_only(shop_table: str) -> None:
    ids = place(1)
    with pytest.raises(InvalidInput, match="shipping only"):
        bulk.run("cancel", ids, actor=Actor("packer"), carrier="DHL")
    assert orders.order_collection(ids[0]).order.status == "PENDING"
