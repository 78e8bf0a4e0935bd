"""Favourites: a new entity in the customer's partition, written with the order item's flag in one
transaction whose conditions leave both items untouched when they fail."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from dynamo.client import client_of
from dynamo.instrumentation import recording
from shop import access_patterns, favourites, orders, workbench
from shop.errors import FavouriteConflict, InvalidInput, NotFound
from shop.models import Favourite, OrderItem
from tests import factories
from tests.samples import AWS_MODEL


def _place(order_id: str, *products: str) -> None:
    orders.order_place(
        customer_id="1001",
        lines=[orders.OrderLine(p, 1) for p in products],
        order_id=order_id,
        placed_at=datetime(2026, 4, 1, 12, 0),
    )


def _raw(pk: str, sk: str) -> dict[str, Any] | None:
    from shop.models import ShopItem

    response = client_of(ShopItem).get_item(TableName=ShopItem.Meta.table_name, Key={"PK": {"S": pk}, "SK": {"S": sk}})
    return dict(response["Item"]) if "Item" in response else None


def _present(pk: str, sk: str) -> dict[str, Any]:
    item = _raw(pk, sk)
    assert item is not None, f"no item {pk} / {sk}"
    return item


@pytest.fixture
def two_orders_to_favour(shop_table: str) -> None:
    factories.shop_with(customers=1, products=2)
    _place("F1", "2001", "2002")
    _place("F2", "2001")


def test_add_writes_both_items_and_the_customer_lists_it_with_one_query(two_orders_to_favour: None) -> None:
    made = favourites.favourite_add(order_id="F1", product_id="p#2001", at=datetime(2026, 4, 2, 8, 0))
    assert (made.pk, made.sk, made.product_name, made.price, made.order_id) == (
        "c#1001",
        "FAVOURITE#2001",
        "Product 2001",
        Decimal("10.50"),
        "F1",
    )
    assert _present("c#1001", "FAVOURITE#2001")["EntityType"] == {"S": "favourite"}
    assert _present("o#F1", "p#2001")["Favourite"] == {"BOOL": True}
    assert "Favourite" not in _present("o#F1", "p#2002")
    with recording() as log:
        page = access_patterns.favourites_for_customer(customer_id="1001")
    assert log.by_operation() == {"Query": 1}
    assert [(f.product_id, f.order_id) for f in page.items] == [("2001", "F1")]
    assert isinstance(page.items[0], Favourite)
    collection = orders.order_collection("F1")  # the order page still reads its collection
    assert {i.product_id: i.is_favourite for i in collection.items} == {"2001": True, "2002": False}


def test_remove_reverses_both_in_one_transaction(two_orders_to_favour: None) -> None:
    favourites.favourite_add(order_id="F1", product_id="2001")
    favourites.favourite_remove(order_id="F1", product_id="2001")
    assert _raw("c#1001", "FAVOURITE#2001") is None
    assert "Favourite" not in _present("o#F1", "p#2001")
    assert access_patterns.favourites_for_customer(customer_id="1001").items == []
    with pytest.raises(FavouriteConflict, match="is not a favourite") as error:
        favourites.favourite_remove(order_id="F1", product_id="2001")
    assert error.value.reason == "not-favourite"


def test_already_a_favourite_leaves_both_items_untouched(two_orders_to_favour: None) -> None:
    favourites.favourite_add(order_id="F1", product_id="2001")
    before = (_raw("c#1001", "FAVOURITE#2001"), _raw("o#F2", "p#2001"))
    with pytest.raises(FavouriteConflict, match="already a favourite of customer 1001 \\(marked from order F1\\)") as e:
        favourites.favourite_add(order_id="F2", product_id="2001")
    assert e.value.reason == "already-favourite"
    assert (_raw("c#1001", "FAVOURITE#2001"), _raw("o#F2", "p#2001")) == before
    with pytest.raises(FavouriteConflict, match="marked as a favourite from order F1, not F2") as e:
        favourites.favourite_remove(order_id="F2", product_id="2001")
    assert e.value.reason == "other-order"
    assert (_raw("c#1001", "FAVOURITE#2001"), _raw("o#F2", "p#2001")) == before


def test_order_item_gone_between_read_and_write_leaves_both_untouched(
    two_orders_to_favour: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = favourites._order_item("F1", "2002")
    OrderItem(pk="o#F1", sk="p#2002").delete()  # e.g. the line was removed meanwhile
    monkeypatch.setattr(favourites, "_order_item", lambda *_: stale)
    with pytest.raises(FavouriteConflict, match="order F1 no longer holds product 2002") as error:
        favourites.favourite_add(order_id="F1", product_id="2002")
    assert error.value.reason == "order-item-changed"
    assert _raw("c#1001", "FAVOURITE#2002") is None  # the favourite was not created
    assert _raw("o#F1", "p#2002") is None  # and the update did not create a ghost order item


def test_order_item_now_holding_another_product_fails_the_condition(
    two_orders_to_favour: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = favourites._order_item("F1", "2002")
    OrderItem(pk="o#F1", sk="p#2002").update(actions=[OrderItem.gsi1_pk.set("p#9999")])
    monkeypatch.setattr(favourites, "_order_item", lambda *_: stale)
    before = _raw("o#F1", "p#2002")
    with pytest.raises(FavouriteConflict, match="no longer holds"):
        favourites.favourite_add(order_id="F1", product_id="2002")
    assert _raw("o#F1", "p#2002") == before and _raw("c#1001", "FAVOURITE#2002") is None


def test_bad_input_and_missing_items(two_orders_to_favour: None) -> None:
    with pytest.raises(InvalidInput):
        favourites.favourite_add(order_id="o#F1", product_id="c#2001")
    with pytest.raises(NotFound, match="order item"):
        favourites.favourite_add(order_id="F1", product_id="2999")
    with pytest.raises(ValueError):
        access_patterns.favourites_for_customer(customer_id="bad id!")


def test_favourite_on_aws_sample_data_and_workbench_round_trip(shop_table: str) -> None:
    workbench.import_items(workbench.parse_file(AWS_MODEL))
    made = favourites.favourite_add(order_id="12345", product_id="12345")
    assert made.pk == "c#12345" and made.product_name  # name taken from the product item
    raw = _present("c#12345", "FAVOURITE#12345")
    document = {
        "DataModel": [
            {
                "TableName": "OnlineShop",
                "KeyAttributes": {"PartitionKey": {"AttributeName": "PK"}, "SortKey": {"AttributeName": "SK"}},
                "TableData": [raw],
            }
        ]
    }
    parsed = workbench.parse_document(document)
    assert parsed.by_entity == {"favourite": 1}
    bad = {**raw, "SK": {"S": "p#12345"}}
    with pytest.raises(workbench.WorkbenchError, match="expected 'FAVOURITE#'"):
        workbench.parse_document({**document, "DataModel": [{**document["DataModel"][0], "TableData": [bad]}]})
