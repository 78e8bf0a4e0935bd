"""The audit trail on DynamoDB Local: an entry exists exactly when its change does (same transaction)."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest

from dynamo.paging import all_items
from shop import access_patterns, audit, favourites, keys, orders
from shop.audit import Actor
from shop.errors import FavouriteConflict, InvalidInput, OrderConflict
from shop.models import AuditEntry, Order
from shop.orders import OrderLine
from tests import factories

pytestmark = pytest.mark.ddb_local

PACKER = Actor("packer", "req-1")


@pytest.fixture
def order_id(shop_table: str) -> str:
    factories.shop_with(customers=1, products=2)
    oid = "a-" + uuid.uuid4().hex[:8]
    orders.order_place(
        customer_id="1001",
        lines=[OrderLine("2001", 1), OrderLine("2002", 2)],
        placed_at=datetime(2024, 5, 1, 12, 0),
        order_id=oid,
    )
    return oid


def trail(order_id: str) -> list[AuditEntry]:
    return orders.order_collection(order_id).history


def test_ship_deliver_write_one_entry_each_with_who_what_and_version(order_id: str) -> None:
    orders.order_ship(order_id=order_id, expected_version=1, actor=PACKER)
    orders.order_deliver(order_id=order_id, actor=Actor("driver", "req-2"))
    newest, oldest = trail(order_id)
    assert (oldest.action, oldest.user, oldest.from_status, oldest.to_status, oldest.order_version) == (
        "ship",
        "packer",
        "PENDING",
        "SHIPPED",
        2,
    )
    assert oldest.request_id == "req-1" and oldest.order_id == order_id and oldest.at
    assert (newest.action, newest.user, newest.from_status, newest.to_status, newest.order_version) == (
        "deliver",
        "driver",
        "SHIPPED",
        "DELIVERED",
        3,
    )
    assert orders.order_collection(order_id).order.version == 3


def test_a_refused_change_writes_no_entry(order_id: str) -> None:
    with pytest.raises(OrderConflict):
        orders.order_deliver(order_id=order_id, actor=PACKER)  # not shipped
    with pytest.raises(OrderConflict):
        orders.order_cancel(order_id=order_id, expected_version=9, actor=PACKER)  # stale version
    assert trail(order_id) == []
    assert orders.order_collection(order_id).order.status == "PENDING"


def test_a_failed_condition_leaves_both_the_order_and_the_trail_untouched(
    order_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone else ships between our read and our commit: our transaction's condition fails, so neither
    the status change nor its audit entry is written (the other change's entry is the only one)."""
    real = orders.order_collection

    def read_then_race(oid: str) -> orders.OrderCollection:
        seen = real(oid)
        monkeypatch.setattr(orders, "order_collection", real)
        orders.order_cancel(order_id=oid, actor=Actor("other", "req-9"))
        return seen

    monkeypatch.setattr(orders, "order_collection", read_then_race)
    with pytest.raises(OrderConflict, match="changed while being shipped"):
        orders.order_ship(order_id=order_id, actor=PACKER)
    [only] = trail(order_id)
    assert (only.action, only.user) == ("cancel", "other")
    collection = real(order_id)
    assert collection.order.status == "CANCELLED" and collection.shipments == []


def test_no_actor_no_entry(order_id: str) -> None:
    orders.order_ship(order_id=order_id)  # seeding, imports: not a staff change
    assert trail(order_id) == []


def test_favourites_are_audited_and_a_refused_one_is_not(order_id: str) -> None:
    favourites.favourite_add(order_id=order_id, product_id="2001", actor=PACKER)
    with pytest.raises(FavouriteConflict):
        favourites.favourite_add(order_id=order_id, product_id="2001", actor=PACKER)
    favourites.favourite_remove(order_id=order_id, product_id="2001", actor=Actor("boss"))
    assert [(e.action, e.user, e.product_id) for e in trail(order_id)] == [
        ("unfavourite", "boss", "2001"),
        ("favourite", "packer", "2001"),
    ]


def test_entries_do_not_show_up_as_another_entity(order_id: str) -> None:
    orders.order_ship(order_id=order_id, actor=PACKER)
    collection = orders.order_collection(order_id)
    assert [type(i).__name__ for i in all_items(access_patterns.order_details, order_id=order_id)].count(
        "AuditEntry"
    ) == 1
    assert {i.product_id for i in collection.items} == {"2001", "2002"}
    assert len(access_patterns.order_items(order_id=order_id).items) == 2
    assert len(access_patterns.invoices_for_order(order_id=order_id).items) == 1
    assert len(access_patterns.shipments_for_order(order_id=order_id).items) == 1
    assert isinstance(collection.order, Order)


def test_audit_record_joins_any_transaction(order_id: str) -> None:
    """The function other staff changes (e.g. a dead-letter replay) call inside their own transaction."""
    from dynamo.transactions import Transaction
    from shop.models import ShopItem

    tx = Transaction(ShopItem)
    entry = audit.record(tx, Actor("ops", "req-7"), action="replay", order_id=order_id, detail="3 records")
    tx.commit()
    [stored] = trail(order_id)
    assert entry is not None and stored.sk == entry.sk and stored.detail == "3 records"


def test_changes_to_no_order_are_audited_in_their_own_partition(shop_table: str) -> None:
    from dynamo.transactions import Transaction
    from shop.models import ShopItem

    with pytest.raises(InvalidInput, match="names the order"):
        audit.entry(Actor("ops"), action="ship", order_id=None)
    tx = Transaction(ShopItem)
    entry = audit.record(tx, Actor("ops"), action="replay", order_id="77", detail="MODIFY o#77", system=True)
    tx.commit()
    assert entry is not None and (entry.pk, entry.order_id) == (keys.SYSTEM_AUDIT, "77")
    assert [i.sk for i in ShopItem.query(keys.SYSTEM_AUDIT)] == [entry.sk]
    assert list(ShopItem.query("o#77")) == []  # an order's partition holds changes to that order only


@pytest.mark.parametrize("name", ["", "x" * 151])
def test_an_actor_needs_a_username(name: str) -> None:
    with pytest.raises(InvalidInput):
        Actor(name)


def test_a_ship_that_moves_the_delivery_date_records_its_before_and_after(order_id: str) -> None:
    # given an order placed on 2024-05-01, expected (standard shipping) on 2024-05-06
    assert orders.order_collection(order_id).order.delivery_date == "2024-05-06"
    # when it ships by express three weeks later
    orders.order_ship(order_id=order_id, shipped_at=datetime(2024, 5, 22, 9, 0), shipment_type="Express", actor=PACKER)
    # then its ship entry says the delivery date moved, from what to what
    [entry] = trail(order_id)
    assert [(c.attribute, c.before, c.after) for c in entry.changes or []] == [
        ("DeliveryDate", "2024-05-06", "2024-05-24")
    ]
    assert entry.detail == "Delivery date: 2024-05-06 -> 2024-05-24"
    assert orders.order_collection(order_id).order.delivery_date == "2024-05-24"


def test_a_ship_that_keeps_the_delivery_date_records_no_change(order_id: str) -> None:
    # given an order expected on 2024-05-06; when it ships by standard on the day it was placed
    orders.order_ship(order_id=order_id, shipped_at=datetime(2024, 5, 1, 15, 0), actor=PACKER)
    # then the entry records the status change only
    [entry] = trail(order_id)
    assert (entry.from_status, entry.to_status) == ("PENDING", "SHIPPED")
    assert entry.changes is None and entry.detail is None


def test_a_ship_gives_an_order_without_a_stored_date_one_and_records_it_as_new(shop_table: str) -> None:
    # given a pending order written before orders stored DeliveryDate
    from tests.shop import legacy

    order, *rest = legacy.order_items(1)
    assert isinstance(order, Order)
    order.delivery_date = None
    legacy.write(iter([order, *rest]))
    # when staff ship it
    orders.order_ship(order_id="L000001", shipped_at=datetime(2026, 3, 3, 9, 0), actor=PACKER)
    # then the entry records the date as set where there was none
    [entry] = trail("L000001")
    [change] = entry.changes or []
    assert (change.attribute, change.after) == ("DeliveryDate", "2026-03-08") and change.before is None


@pytest.mark.parametrize(
    ("attribute", "words"),
    [
        ("Price", "Price"),
        ("Quantity", "Quantity"),
        ("Detail.Name", "Name"),
        ("Detail.Description", "Description"),
        ("Address.City", "Address city"),
        ("Address.ZipCode", "Address zip code"),
    ],
)
def test_an_edited_attribute_reads_as_words_not_as_its_path(attribute: str, words: str) -> None:
    assert audit.attribute_words(attribute) == words
