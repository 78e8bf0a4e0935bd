"""Entity edits reach the admin view through the stream like any write: the email lookup follows the new address,
the catalogue index lists every product with its edited values, and the activity lists show each edit under its
kind. The projection parts are pure; the rest runs on DynamoDB Local."""

from __future__ import annotations

from typing import Any

import pytest

from adminview.core import schema
from adminview.core.sources.shop import SOURCE, ProductState, activity_items
from adminview.reads import activity as staff_activity
from adminview.reads import selectors
from adminview.reads.catalogue import catalogue
from adminview.repair import partition, rebuild
from shop import editing
from shop.audit import Actor
from shop.errors import InvalidInput
from tests import factories
from tests.adminview_helpers import sync_now

ANN = Actor("ann")


# --- pure ---------------------------------------------------------------------------------------------------


def test_a_product_projects_its_catalogue_row() -> None:
    image: dict[str, Any] = {
        "PK": "p#7", "SK": "p#7", "EntityType": "product", "Price": "9.50", "Category": "books",
        "Detail": {"Name": "Seven", "Description": "<b>bold</b>"},
    }  # fmt: skip
    state = ProductState.read(schema.product("7"), None)
    state.apply("p#7", image)
    row = state.implied(list_shards=4).anchor
    assert row == {
        "PK": "p#7", "SK": "#product", "Kind": "product", "ProductId": "7", "Name": "Seven",
        "Price": "9.50", "Category": "books", "Description": "<b>bold</b>",
        "GSI8PK": f"CATALOGUE#{schema.shard_of('7', 4)}", "GSI8SK": "7",
    }  # fmt: skip
    assert partition.anchor_of_item(row) == ("p#7", "#product")
    bare = ProductState.read(schema.product("8"), None)
    bare.apply("p#8", {"PK": "p#8", "SK": "p#8", "EntityType": "product"})
    bare_row = bare.implied(list_shards=4).anchor
    assert bare_row is not None and "Name" not in bare_row and bare_row["ProductId"] == "8"
    stock_row = {"PK": "p#8", "SK": "w#1", "EntityType": "warehouseItem", "Quantity": "3"}
    assert SOURCE.anchor_of(("p#8", "w#1"), stock_row) is None


@pytest.mark.parametrize(
    ("pk", "action", "kind"),
    [
        ("o#1", "ship", "order"),
        ("c#1", "edit-customer", "customer"),
        ("p#1", "edit-product", "product"),
        ("p#1", "stock-adjust", "stock"),
        ("w#1", "edit-warehouse", "warehouse"),
        ("AUDIT#system", "replay", "system"),
    ],
)
def test_each_change_is_listed_under_its_kind(pk: str, action: str, kind: str) -> None:
    image = {"PK": pk, "SK": "AUDIT#2026-01-01T00:00:00.000000#ab", "EntityType": "audit",
             "User": "ann", "Action": action, "At": "2026-01-01T00:00:00.000000"}  # fmt: skip
    items = activity_items((pk, "AUDIT#2026-01-01T00:00:00.000000#ab"), image, list_shards=2)
    assert [i["PK"].split("#", 1)[0] for i in items] == ["ACTIVITY", "USER", "KIND"]
    assert items[2]["PK"].startswith(f"KIND#{kind}#")
    assert ("OrderId" in items[0]) == (kind == "order")


# --- through the stream ------------------------------------------------------------------------------------------


def test_an_email_edit_moves_the_lookup_and_the_catalogue_follows_product_edits(
    shop_table: str, admin_view_table: str
) -> None:
    factories.shop_with(customers=2, products=3)
    sync_now()
    assert selectors.customer_id_for_email(email="c1001@example.com") == "1001"
    seen = editing.snapshot(editing.customer_target("1001"))
    editing.customer_edit(customer_id="1001", seen=seen, name="Ada", email="Ada@New.example", actor=ANN)
    seen = editing.snapshot(editing.product_target("2002"))
    editing.product_edit(product_id="2002", seen=seen, name="Renamed", description="d", price="3", category="c",
                         actor=ANN)  # fmt: skip
    sync_now()
    assert selectors.customer_id_for_email(email="ada@new.example") == "1001"
    assert selectors.customer_id_for_email(email="c1001@example.com") is None
    first = catalogue(limit=2)
    assert [r.product_id for r in first.rows] == ["2001", "2002"] and first.rows[1].name == "Renamed"
    assert (first.rows[1].price, first.rows[1].category, first.rows[1].description) == ("3", "c", "d")
    rest = catalogue(limit=2, after=first.next)
    assert [r.product_id for r in rest.rows] == ["2003"] and rest.next is None
    assert rebuild.verify().clean


def test_activity_lists_edits_by_kind_with_their_entity(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=1, products=1)
    seen = editing.snapshot(editing.customer_target("1001"))
    editing.customer_edit(customer_id="1001", seen=seen, name="Ada L.", email=seen.values["Email"], actor=ANN)
    editing.stock_adjust(product_id="2001", warehouse_id="301", delta=5, reason="delivery", actor=ANN)
    sync_now()
    everything = staff_activity.activity().rows
    assert [(r.kind, r.entity_id, r.order_id, r.action) for r in everything] == [
        ("stock", "2001", "", "stock-adjust"),
        ("customer", "1001", "", "edit-customer"),
    ]
    assert everything[0].detail == "warehouse 301: Quantity: 100 -> 105 (delivery)"
    assert [r.action for r in staff_activity.activity(kind="customer").rows] == ["edit-customer"]
    assert staff_activity.activity(kind="order").rows == []
    with pytest.raises(InvalidInput, match="not both"):
        staff_activity.activity(kind="customer", user="ann")
    with pytest.raises(InvalidInput, match="kind must be"):
        staff_activity.activity(kind="nope")
    assert rebuild.verify().clean


def test_a_replayed_older_product_record_does_not_bring_back_an_old_catalogue_row(
    shop_table: str, admin_view_table: str
) -> None:
    factories.shop_with(customers=1, products=1)
    for name in ("First", "Second"):
        seen = editing.snapshot(editing.product_target("2001"))
        editing.product_edit(product_id="2001", seen=seen, name=name, description=None, price="1", category=None,
                             actor=ANN)  # fmt: skip
    sync_now()
    replay = sync_now(replay=True)  # every record again, the older edit's included
    assert replay.applied == 2  # the two audit entries, rewritten as they were; the product's records skipped
    assert [r.name for r in catalogue().rows] == ["Second"]
    assert rebuild.verify().clean
