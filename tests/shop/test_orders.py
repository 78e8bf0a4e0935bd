"""Domain writes for orders against DynamoDB Local: all-or-nothing, conditional, never overselling."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import pytest

from dynamo.transactions import Transaction
from shop import access_patterns as ap
from shop import orders
from shop.errors import Busy, InvalidInput, NotFound, OrderConflict, OutOfStock
from shop.keys import OrderStatus
from shop.models import Customer, Order, ShopItem
from tests import factories


def stock(product_id: str = "2001") -> int:
    return ap.inventory_for_product(product_id=product_id).items[0].quantity


def place(qty: int = 1, product: str = "2001", **kwargs: Any) -> Order:
    return orders.order_place(customer_id="1001", lines=[orders.OrderLine(product, qty)], **kwargs)


def test_place_writes_order_items_invoice_and_takes_stock(shop_table: str) -> None:
    factories.shop_with(products=2, stock_each=10)
    order = orders.order_place(
        customer_id="c#1001",
        lines=[orders.OrderLine("2001", 2), orders.OrderLine("p#2002", 1), orders.OrderLine("2001", 1)],
    )
    collection = orders.order_collection(order.order_id)
    assert collection.order.status == "PENDING" and collection.order.version == 1
    assert collection.order.total == Decimal("42.00") and collection.order.item_count == 4
    assert {(i.product_id, i.quantity, i.warehouse_id) for i in collection.items} == {
        ("2001", 3, "301"),
        ("2002", 1, "301"),
    }
    (invoice,) = collection.invoices
    assert invoice.amount == Decimal("42.00") and invoice.payments[0].amount == Decimal("42.00")
    assert invoice.payments[0].transaction_id
    assert (stock("2001"), stock("2002")) == (7, 9)
    # visible through the customer's patterns (15 and 16)
    day = collection.order.date.date().isoformat()
    assert [i.invoice_id for i in ap.invoices_for_customer(customer_id="1001", start=day, end=day).items] == [
        invoice.invoice_id
    ]
    assert len(ap.order_items_for_customer(customer_id="1001", start=day, end=day).items) == 2


def test_place_refuses_and_writes_nothing(shop_table: str) -> None:
    factories.shop_with(products=1, stock_each=2)
    with pytest.raises(OutOfStock):
        place(3)
    with pytest.raises(NotFound):
        orders.order_place(customer_id="9999", lines=[orders.OrderLine("2001", 1)])
    with pytest.raises(NotFound):
        place(1, product="7777")
    with pytest.raises(InvalidInput):
        place(0)
    with pytest.raises(InvalidInput):
        orders.order_place(customer_id="1001", lines=[])
    with pytest.raises(InvalidInput):
        place(1, payments=[orders.PaymentSpec("Visa", "1.00")])  # does not add up to 10.50
    with pytest.raises(InvalidInput, match="float"):
        place(1, payments=[orders.PaymentSpec("Visa", 10.5)])  # type: ignore[arg-type]  # floats never reach money
    assert stock() == 2
    assert ap.order_items_for_customer(customer_id="1001", start="2000-01-01", end="2100-01-01").items == []


def test_split_payments_and_existing_order_id(shop_table: str) -> None:
    factories.shop_with(products=1)
    order = place(
        2,
        payments=[
            orders.PaymentSpec("GiftCard", "1.00"),
            orders.PaymentSpec("MasterCard", "20.00", transaction_id="txn_1"),
        ],
        order_id="o#42",
    )
    assert [p.type for p in orders.order_collection("42").invoices[0].payments] == ["GiftCard", "MasterCard"]
    with pytest.raises(OrderConflict):
        place(1, order_id=order.order_id)
    assert stock() == 98


def test_ship_then_deliver(shop_table: str) -> None:
    factories.shop_with(products=1)
    order = place(2)
    orders.order_ship(order_id=order.order_id, shipment_type="Express")
    collection = orders.order_collection(order.order_id)
    assert collection.order.status == "SHIPPED" and collection.order.version == 2
    (shipment,) = collection.shipments
    assert shipment.warehouse_id == "301" and shipment.type == "Express" and shipment.address is not None
    assert [(i.product_id, i.quantity) for i in collection.shipment_items] == [("2001", 2)]
    # patterns 8, 12, 13 see it
    assert [s.shipment_id for s in ap.shipments_for_order(order_id=order.order_id).items] == [shipment.shipment_id]
    assert len(ap.shipment_details(shipment_id=shipment.shipment_id).items) == 2
    assert [s.shipment_id for s in ap.shipments_for_warehouse(warehouse_id="301").items] == [shipment.shipment_id]
    orders.order_deliver(order_id=order.order_id)
    assert orders.order_collection(order.order_id).order.status == "DELIVERED"


def test_status_rules(shop_table: str) -> None:
    factories.shop_with(products=1)
    order = place(1)
    with pytest.raises(OrderConflict, match="only a SHIPPED order"):
        orders.order_deliver(order_id=order.order_id)
    with pytest.raises(OrderConflict, match="changed meanwhile"):
        orders.order_ship(order_id=order.order_id, expected_version=7)
    orders.order_cancel(order_id=order.order_id, expected_version=1)
    assert stock() == 100
    for action in (orders.order_ship, orders.order_cancel, orders.order_deliver):
        with pytest.raises(OrderConflict) as caught:
            action(order_id=order.order_id)
        assert caught.value.status == OrderStatus.CANCELLED
    assert stock() == 100
    with pytest.raises(NotFound):
        orders.order_ship(order_id="missing")
    with pytest.raises(InvalidInput):
        orders.order_ship(order_id="bad id")


def test_a_cancel_carries_a_callers_actions_in_its_transaction(shop_table: str) -> None:
    # given a pending order, and a caller whose extra action is an item of its own (here: in the shop table)
    factories.shop_with(products=1)
    order = place(2)
    seen: list[str] = []

    def note(tx: Transaction, collection: orders.OrderCollection) -> None:
        seen.append(collection.order.order_id)
        tx.put("note", Customer(pk="c#note", sk="c#note", name="cancelled"), ShopItem.pk.does_not_exist())

    # when it is cancelled with that extra action, then both happened
    orders.order_cancel(order_id=order.order_id, extra=note)
    assert seen == [order.order_id] and ap.customer_by_id(customer_id="note") is not None
    assert orders.order_collection(order.order_id).order.status == "CANCELLED" and stock() == 100


def test_a_cancel_whose_extra_action_fails_is_not_made(shop_table: str) -> None:
    # given a pending order and an extra action whose condition can never hold
    factories.shop_with(products=1)
    order = place(2)
    factories.customer("taken")

    def clash(tx: Transaction, collection: orders.OrderCollection) -> None:
        tx.put("clash", Customer(pk="c#taken", sk="c#taken", name="again"), ShopItem.pk.does_not_exist())

    # when it is cancelled, then it is retried from its reads and refused in the end: nothing changed
    with pytest.raises(Busy):
        orders.order_cancel(order_id=order.order_id, extra=clash)
    assert orders.order_collection(order.order_id).order.status == "PENDING" and stock() == 98


def test_two_staff_acting_at_once_only_one_wins(shop_table: str) -> None:
    factories.shop_with(products=1)
    order = place(1)

    def act(action: str) -> str:
        try:
            (orders.order_ship if action == "ship" else orders.order_cancel)(
                order_id=order.order_id, expected_version=1
            )
            return action
        except OrderConflict:
            return "conflict"

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(act, ["ship", "cancel"] * 4))
    winners = [r for r in results if r != "conflict"]
    assert len(winners) == 1
    final = orders.order_collection(order.order_id)
    assert final.order.status == ("SHIPPED" if winners[0] == "ship" else "CANCELLED")
    assert stock() == (99 if winners[0] == "ship" else 100)
    assert len(final.shipments) == (1 if winners[0] == "ship" else 0)


@pytest.mark.slow
def test_concurrent_orders_never_oversell(shop_table: str) -> None:
    """40 buyers in 16 threads race for the last 7 units: exactly 7 orders succeed, stock ends at 0."""
    factories.shop_with(products=1, stock_each=7)

    def buy(_: int) -> str:
        try:
            place(1)
            return "ok"
        except OutOfStock:
            return "out"
        except Busy:
            return "busy"

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(buy, range(40)))
    sold = results.count("ok")
    assert stock() == 7 - sold >= 0
    assert sold + results.count("busy") >= 7  # nobody was refused while stock remained, unless told to retry
    assert sold == len(
        ap.order_items_for_product(product_id="2001", start="2000-01-01", end="2100-01-01", limit=1000).items
    )


def _raw_shipments(order_id: str) -> list[dict[str, Any]]:
    from dynamo.client import client_of
    from dynamo.paging import raw_items
    from shop.models import ShopItem

    return [
        raw
        for raw in raw_items(
            client_of(ShopItem),
            "query",
            TableName=str(ShopItem.Meta.table_name),
            KeyConditionExpression="PK = :pk AND begins_with(SK, :sh)",
            ExpressionAttributeValues={":pk": {"S": f"o#{order_id}"}, ":sh": {"S": "sh#"}},
        )
    ]


def test_ship_stores_the_carrier_and_tracking_number_on_each_shipment(shop_table: str) -> None:
    # given a pending order of products from two warehouses
    factories.shop_with(products=1)
    factories.product("2002")
    factories.warehouse("302")
    factories.stock("2002", "302", 5)
    order = orders.order_place(customer_id="1001", lines=[orders.OrderLine("2001", 1), orders.OrderLine("2002", 1)])
    # when it ships with a carrier and a tracking number (as typed, with spaces around)
    orders.order_ship(order_id=order.order_id, carrier=" DHL ", tracking_number=" JD014600003SE ")
    # then both shipments carry them, trimmed, as plain strings
    raws = _raw_shipments(order.order_id)
    assert len(raws) == 2
    assert all(raw["Carrier"] == {"S": "DHL"} and raw["TrackingNumber"] == {"S": "JD014600003SE"} for raw in raws)
    assert {(s.carrier, s.tracking_number) for s in orders.order_collection(order.order_id).shipments} == {
        ("DHL", "JD014600003SE")
    }


def test_each_shipment_of_a_split_order_gets_the_tracking_number_of_its_warehouse(shop_table: str) -> None:
    # given a pending order of products from warehouses 301 and 302
    factories.shop_with(products=1)
    factories.product("2002")
    factories.warehouse("302")
    factories.stock("2002", "302", 5)
    order = orders.order_place(customer_id="1001", lines=[orders.OrderLine("2001", 1), orders.OrderLine("2002", 1)])
    # when it ships with a number for warehouse 302 and a default for the rest
    orders.order_ship(
        order_id=order.order_id, carrier="UPS", tracking_number="1Z-ALL", warehouse_tracking={"w#302": " 1Z-302 "}
    )
    # then each parcel carries its own number
    shipped = {
        (s.warehouse_id, s.carrier, s.tracking_number) for s in orders.order_collection(order.order_id).shipments
    }
    assert shipped == {("301", "UPS", "1Z-ALL"), ("302", "UPS", "1Z-302")}


def test_a_tracking_number_for_a_warehouse_the_order_does_not_ship_from_writes_nothing(shop_table: str) -> None:
    factories.shop_with(products=1)
    order = place(1)
    with pytest.raises(InvalidInput, match="ships from no warehouse 999"):
        orders.order_ship(order_id=order.order_id, warehouse_tracking={"999": "X1"})
    assert orders.order_collection(order.order_id).order.status == "PENDING"


def test_ship_without_a_carrier_stores_neither_attribute(shop_table: str) -> None:
    factories.shop_with(products=1)
    order = place(1)
    orders.order_ship(order_id=order.order_id, carrier="  ", tracking_number="")
    [raw] = _raw_shipments(order.order_id)
    assert "Carrier" not in raw and "TrackingNumber" not in raw
    [shipment] = orders.order_collection(order.order_id).shipments
    assert shipment.carrier is None and shipment.tracking_number is None  # as on shipments written before


@pytest.mark.parametrize(
    "given", [{"carrier": "x" * 101}, {"tracking_number": "y" * 101}, {"tracking_number": "JD01\n46"}]
)
def test_ship_with_a_bad_carrier_or_tracking_number_writes_nothing(shop_table: str, given: dict[str, str]) -> None:
    factories.shop_with(products=1)
    order = place(1)
    with pytest.raises(InvalidInput, match=r"at most 100 characters|line breaks"):
        orders.order_ship(
            order_id=order.order_id, carrier=given.get("carrier"), tracking_number=given.get("tracking_number")
        )
    collection = orders.order_collection(order.order_id)
    assert (collection.order.status, collection.order.version, collection.shipments) == ("PENDING", 1, [])
