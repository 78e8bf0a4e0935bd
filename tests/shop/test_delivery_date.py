"""DeliveryDate and DeliveryDate-index: written by new orders, read lazily from old ones, and the index
added online to a populated table while the shop keeps serving."""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import datetime

import pytest

from dynamo import local
from dynamo.paging import all_items
from dynamo.tables import ensure_table
from shop import access_patterns, orders
from shop.delivery import delivery_date_for
from shop.models import SHOP_TABLE, Order, ShopItem
from shop.timestamps import InvalidDate
from tests import factories
from tests.engines import forget_connections
from tests.shop import legacy

INDEX = "DeliveryDate-index"
ENDPOINT_VARS = ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_DYNAMODB_STREAMS")
ORDERS = 10_000


def test_order_place_sets_delivery_date_and_ship_moves_it(shop_table: str) -> None:
    factories.shop_with(customers=1, products=1)
    placed = datetime(2026, 5, 4, 10, 0)
    order = orders.order_place(customer_id="1001", lines=[orders.OrderLine("2001", 1)], placed_at=placed, order_id="D1")
    assert order.delivery_date == "2026-05-09"  # standard: 5 days
    assert [o.order_id for o in access_patterns.orders_due_on(date="2026-05-09").items] == ["D1"]
    orders.order_ship(order_id="D1", shipped_at=datetime(2026, 5, 5, 8, 0), shipment_type="Express")
    assert access_patterns.orders_due_on(date="2026-05-09").items == []
    due = access_patterns.orders_due_on(date="2026-05-07").items
    assert [(o.order_id, o.customer_id, o.status) for o in due] == [("D1", "1001", "SHIPPED")]


def test_an_order_without_delivery_date_is_read_lazily(shop_table: str) -> None:
    legacy.write(legacy.order_items(1, legacy=True))
    collection = orders.order_collection("L000001")
    assert collection.order.delivery_date is None
    assert not collection.order.delivery_date_stored
    assert collection.order.expected_delivery == delivery_date_for(legacy.placed_at(1))
    assert Order(pk="o#x", sk="c#y").expected_delivery is None  # no date at all: unknown
    assert access_patterns.orders_due_on(date=collection.order.expected_delivery).items == []


def test_orders_due_on_pages_and_refuses_bad_dates(shop_table: str) -> None:
    legacy.write(legacy.order_items(30, only_orders=True))
    day = delivery_date_for(legacy.placed_at(10))
    first = access_patterns.orders_due_on(date=day, limit=2)
    assert len(first.items) == 2 and first.next_key is not None
    every = list(all_items(access_patterns.orders_due_on, page_size=2, date=day))
    assert sorted(o.order_id for o in every) == ["L000010", "L000020", "L000030"]
    for bad in ("2026-02-30", "tomorrow", "2026-3-1"):
        with pytest.raises(InvalidDate):
            access_patterns.orders_due_on(date=bad)


@pytest.fixture
def own_engine(ddb_local: local.DynamoDBLocal) -> Iterator[str]:
    """A DynamoDB Local of its own: after an online index build the engine stays slow for every later
    write (seen with 10,000 orders), so the session's shared engine must not do it."""
    saved = {k: os.environ.get(k) for k in ENDPOINT_VARS}
    with local.in_memory(short_lived=True) as engine:
        os.environ.update({k: engine.endpoint for k in ENDPOINT_VARS})
        forget_connections()
        try:
            yield engine.endpoint
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            forget_connections()


@pytest.mark.slow
def test_index_added_online_to_a_populated_table_while_serving(own_engine: str) -> None:
    original = ShopItem.Meta.table_name
    legacy.create_shop_table_without(INDEX)
    try:
        factories.shop_with(customers=1, products=2, stock_each=1000)
        legacy.write(legacy.order_items(ORDERS, only_orders=True))
        expected = Counter(delivery_date_for(legacy.placed_at(n)) for n in range(1, ORDERS + 1))

        stop = threading.Event()
        errors: list[BaseException] = []
        placed: list[str] = []
        reads = 0
        during = datetime(2026, 3, 3, 12, 0)  # delivery 2026-03-08, a day the seeded orders use too

        def serve() -> None:
            nonlocal reads
            n = 0
            while not stop.is_set():
                n += 1
                try:
                    page = access_patterns.order_details(order_id=f"L{1 + n % ORDERS:06d}", limit=5)
                    assert page.items, "an order disappeared"
                    access_patterns.inventory_for_warehouse(warehouse_id="301", limit=10)
                    reads += 2
                    if n % 5 == 0:
                        oid = f"LIVE{n:05d}"
                        orders.order_place(
                            customer_id="1001", lines=[orders.OrderLine("2001", 1)], placed_at=during, order_id=oid
                        )
                        placed.append(oid)
                except BaseException as exc:  # every failure is what this test looks for
                    errors.append(exc)
                    return

        worker = threading.Thread(target=serve)
        worker.start()
        try:
            changes = ensure_table(SHOP_TABLE)
        finally:
            stop.set()
            worker.join()

        assert changes == [f"added index {INDEX} to {ShopItem.Meta.table_name}"]
        assert errors == []
        assert reads > 0 and placed, "the shop was not serving while the index was built"
        for day, count in expected.items():
            got = list(all_items(access_patterns.orders_due_on, date=day))
            live = [o for o in got if o.order_id.startswith("LIVE")]
            assert len(got) - len(live) == count, day
            assert all(o.status == "PENDING" and o.total is not None for o in got)
        due_live = {
            o.order_id
            for o in all_items(access_patterns.orders_due_on, date="2026-03-08")
            if o.order_id.startswith("LIVE")
        }
        assert due_live == set(placed)
        assert ensure_table(SHOP_TABLE) == []  # idempotent
    finally:
        ShopItem.Meta.table_name = original  # the engine goes away with its tables
