"""Staff edits against DynamoDB Local: each save changes only the edited attributes (raw items compared before and
after), keeps AWS's encodings, is refused whole when the form is stale, and writes its audit entry with it."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from dynamo import backfill
from dynamo.client import client_of
from shop import editing, history, keys, migrations
from shop.audit import Actor
from shop.errors import EditConflict, EmailTaken, InvalidInput, NotFound
from shop.models import AuditEntry, ShopItem
from shop.snapshots import Snapshot, UneditableItem
from tests import factories
from tests.samples import AWS_MODEL
from tests.shop.test_access_patterns_aws import EXAMPLES, keys_of, run
from tests.shop.test_backfill import checkpoint_table as checkpoint_table  # the fixture

ANN = Actor("ann", request_id="req-1")
BOB = Actor("bob")


def raw(pk: str, sk: str | None = None) -> dict[str, Any] | None:
    table = str(ShopItem.Meta.table_name)
    response = client_of(ShopItem).get_item(TableName=table, Key={"PK": {"S": pk}, "SK": {"S": sk or pk}})
    return dict(response["Item"]) if "Item" in response else None


def put_raw(item: dict[str, Any]) -> None:
    client_of(ShopItem).put_item(TableName=str(ShopItem.Meta.table_name), Item=item)


def trail(pk: str) -> list[AuditEntry]:
    return [e for e in ShopItem.query(pk, ShopItem.sk.startswith(keys.AUDIT)) if isinstance(e, AuditEntry)]


def changed(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


@pytest.fixture
def aws(shop_table: str) -> None:
    call_command("import_workbench", str(AWS_MODEL), stdout=StringIO())


def edit_product(product_id: str = "12345", actor: Actor = ANN, **change: Any) -> list[Any]:
    seen = editing.snapshot(editing.product_target(product_id))
    values = {
        "name": seen.values["Detail.Name"],
        "description": seen.values["Detail.Description"],
        "price": seen.values["Price"],
        "category": seen.values["Category"],
    }
    return editing.product_edit(product_id=product_id, seen=seen, actor=actor, **(values | change))


# --- products ---------------------------------------------------------------------------------------------------


def test_a_price_edit_writes_only_the_price_as_a_decimal_string_and_the_version(aws: None) -> None:
    before = raw("p#12345")
    assert before is not None
    changes = edit_product(price=Decimal("89.90"))
    after = raw("p#12345")
    assert after is not None
    assert changed(before, after) == {"Price", "Version"}
    assert after["Price"] == {"S": "89.90"} and after["Version"] == {"N": "1"}
    assert after["Detail"] == before["Detail"]
    assert [(c.attribute, c.before, c.after) for c in changes] == [("Price", "100", "89.90")]


def test_a_name_edit_sets_the_path_inside_detail_and_leaves_its_other_keys(aws: None) -> None:
    before = raw("p#12345")
    assert before is not None
    edit_product(name="Options Open (remastered)", category="music")
    after = raw("p#12345")
    assert after is not None
    assert changed(before, after) == {"Detail", "Category", "Version"}
    assert after["Detail"] == {
        "M": {"Name": {"S": "Options Open (remastered)"}, "Description": {"S": "The latest album"}}
    }
    assert after["Category"] == {"S": "music"}


def test_a_product_without_a_detail_map_gets_one_holding_the_edited_keys(shop_table: str) -> None:
    put_raw({"PK": {"S": "p#7"}, "SK": {"S": "p#7"}, "EntityType": {"S": "product"}, "Price": {"S": "5"}})
    edit_product("7", name="Seven")
    after = raw("p#7")
    assert after is not None
    assert after["Detail"] == {"M": {"Name": {"S": "Seven"}}} and after["Price"] == {"S": "5"}


def test_a_stale_form_gets_a_conflict_naming_what_changed_and_writes_nothing(aws: None) -> None:
    target = editing.product_target("12345")
    stale = editing.snapshot(target)
    edit_product(actor=BOB, price="95")
    before = raw("p#12345")
    with pytest.raises(EditConflict) as caught:
        editing.product_edit(
            product_id="12345", seen=stale, name="Other", description="The latest album", price="100", category=None,
            actor=ANN,
        )  # fmt: skip
    assert [(d.attribute, d.seen, d.now) for d in caught.value.drifts] == [("Price", "100", "95")]
    assert raw("p#12345") == before
    assert [e.user for e in trail("p#12345")] == ["bob"]


def test_the_version_alone_catches_a_change_and_change_back(aws: None) -> None:
    stale = editing.snapshot(editing.product_target("12345"))
    edit_product(actor=BOB, price="95")
    edit_product(actor=BOB, price="100")
    with pytest.raises(EditConflict) as caught:
        editing.product_edit(
            product_id="12345", seen=stale, name="X", description="The latest album", price="100", category=None,
            actor=ANN,
        )  # fmt: skip
    assert [d.attribute for d in caught.value.drifts] == ["Version"]


def test_a_save_that_changes_nothing_writes_nothing(aws: None) -> None:
    before = raw("p#12345")
    assert edit_product(price="100.00") == []  # the same price, written differently
    assert raw("p#12345") == before and trail("p#12345") == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"price": "-1"}, "from 0"),
        ({"price": "1.999"}, "decimal places"),
        ({"price": "abc"}, "not a number"),
        ({"price": "NaN"}, "from 0"),
        ({"name": ""}, "required"),
        ({"name": "   "}, "blank"),
        ({"name": "x" * 201}, "at most 200"),
        ({"description": "a\x00b"}, "NUL"),
    ],
)
def test_bad_values_are_refused_and_nothing_is_written(aws: None, change: dict[str, Any], message: str) -> None:
    before = raw("p#12345")
    with pytest.raises(InvalidInput, match=message):
        edit_product(**change)
    assert raw("p#12345") == before and trail("p#12345") == []


def test_hostile_text_is_stored_as_typed(aws: None) -> None:
    text = '=HYPERLINK("http://x")<script>alert(1)</script>\x1b[31m'
    edit_product(description=text)
    after = raw("p#12345")
    assert after is not None and after["Detail"]["M"]["Description"] == {"S": text}


def test_an_old_value_todays_rules_refuse_does_not_block_other_edits(shop_table: str) -> None:
    put_raw({"PK": {"S": "p#8"}, "SK": {"S": "p#8"}, "EntityType": {"S": "product"}, "Price": {"S": "1.999"}})
    edit_product("8", name="Eight")
    after = raw("p#8")
    assert after is not None and after["Price"] == {"S": "1.999"}


def test_an_attribute_of_another_type_is_refused_rather_than_retyped(shop_table: str) -> None:
    put_raw({"PK": {"S": "p#9"}, "SK": {"S": "p#9"}, "EntityType": {"S": "product"}, "Price": {"N": "3"}})
    with pytest.raises(UneditableItem, match="Price is stored as N"):
        editing.snapshot(editing.product_target("9"))


def test_an_unknown_product_is_not_found(shop_table: str) -> None:
    with pytest.raises(NotFound):
        editing.snapshot(editing.product_target("404"))


# --- customers --------------------------------------------------------------------------------------------------


def edit_customer(customer_id: str = "12345", actor: Actor = ANN, **change: Any) -> list[Any]:
    seen = editing.snapshot(editing.customer_target(customer_id))
    values = {"name": seen.values["Name"], "email": seen.values["Email"]}
    return editing.customer_edit(customer_id=customer_id, seen=seen, actor=actor, **(values | change))


def test_a_name_edit_changes_the_name_and_claims_the_address_of_an_old_customer(aws: None) -> None:
    before = raw("c#12345")
    assert before is not None and raw("email#samaneh@example.com") is None
    edit_customer(name="Samaneh K.")
    after = raw("c#12345")
    assert after is not None and changed(before, after) == {"Name"}
    assert raw("email#samaneh@example.com") == {
        "PK": {"S": "email#samaneh@example.com"},
        "SK": {"S": "email#samaneh@example.com"},
        "EntityType": {"S": "emailClaim"},
        "CustomerId": {"S": "12345"},
    }
    [entry] = trail("c#12345")
    assert (entry.action, entry.entity_kind, entry.entity_id, entry.user, entry.request_id) == (
        "edit-customer", "customer", "12345", "ann", "req-1",
    )  # fmt: skip
    assert [(c.attribute, c.before, c.after) for c in entry.changes or []] == [("Name", "Samaneh", "Samaneh K.")]


def test_an_email_change_moves_the_claim(aws: None) -> None:
    edit_customer(name="Samaneh K.")
    edit_customer(email="Sam@Example.com")
    after = raw("c#12345")
    assert after is not None and after["Email"] == {"S": "Sam@Example.com"}  # as typed
    assert raw("email#sam@example.com") is not None and raw("email#samaneh@example.com") is None


def test_an_address_held_by_another_customer_is_refused_naming_them(aws: None) -> None:
    edit_customer("23456", name="Kathleen B.")  # claims kathleen@example.com
    before = raw("c#12345")
    with pytest.raises(EmailTaken, match="customer 23456"):
        edit_customer(email="KATHLEEN@example.com")
    assert raw("c#12345") == before and trail("c#12345") == []


def test_an_unclaimed_address_of_an_old_customer_is_refused_through_the_lookup(aws: None) -> None:
    seen = editing.snapshot(editing.customer_target("12345"))
    owners = {"henrik@example.com": "54321"}
    with pytest.raises(EmailTaken, match="customer 54321"):
        editing.customer_edit(
            customer_id="12345", seen=seen, name="Samaneh", email="henrik@example.com", actor=ANN,
            email_owner=lambda email: owners.get(email.lower()),
        )  # fmt: skip


def test_an_address_field_edit_sets_its_path_only(shop_table: str) -> None:
    factories.customer("1001")
    before = raw("c#1001")
    assert before is not None
    seen = editing.snapshot(editing.customer_target("1001"))
    editing.customer_edit(
        customer_id="1001", seen=seen, name=seen.values["Name"], email=seen.values["Email"],
        address={"City": "Boras", "Street": "Main Street"}, actor=ANN,
    )  # fmt: skip
    after = raw("c#1001")
    assert after is not None and changed(before, after) == {"Address"}
    assert after["Address"]["M"] == before["Address"]["M"] | {"City": {"S": "Boras"}}


def test_a_customer_without_an_address_gets_one_holding_the_edited_fields(aws: None) -> None:
    seen = editing.snapshot(editing.customer_target("12345"))
    editing.customer_edit(
        customer_id="12345", seen=seen, name="Samaneh", email="samaneh@example.com",
        address={"City": "Lund", "Street": ""}, actor=ANN,
    )  # fmt: skip
    after = raw("c#12345")
    assert after is not None and after["Address"] == {"M": {"City": {"S": "Lund"}}}


def test_a_stale_customer_form_gets_a_conflict(aws: None) -> None:
    stale = editing.snapshot(editing.customer_target("12345"))
    edit_customer(actor=BOB, email="s@example.com")
    before = raw("c#12345")
    with pytest.raises(EditConflict) as caught:
        editing.customer_edit(customer_id="12345", seen=stale, name="Other", email="samaneh@example.com", actor=ANN)
    assert [(d.attribute, d.seen, d.now) for d in caught.value.drifts] == [
        ("Email", "samaneh@example.com", "s@example.com")
    ]
    assert raw("c#12345") == before


@pytest.mark.parametrize("email", ["no-at-sign", "a b@example.com", "a@b", "x" * 250 + "@example.com"])
def test_a_malformed_email_is_refused(aws: None, email: str) -> None:
    with pytest.raises(InvalidInput):
        edit_customer(email=email)


# --- warehouses and stock --------------------------------------------------------------------------------------


def test_a_warehouse_edit_writes_its_name_and_address_path(aws: None) -> None:
    before = raw("w#12345")
    assert before is not None
    seen = editing.snapshot(editing.warehouse_target("12345"))
    editing.warehouse_edit(warehouse_id="12345", seen=seen, name="North", address={"Number": "22"}, actor=ANN)
    after = raw("w#12345")
    assert after is not None and changed(before, after) == {"Name", "Address"}
    assert after["Address"]["M"] == before["Address"]["M"] | {"Number": {"S": "22"}}
    assert [e.entity_kind for e in trail("w#12345")] == ["warehouse"]


def test_setting_stock_writes_the_quantity_as_a_string_and_nothing_else(aws: None) -> None:
    before = raw("p#12345", "w#12345")
    assert before is not None
    seen = editing.snapshot(editing.stock_target("12345", "12345"))
    editing.stock_set(product_id="12345", warehouse_id="12345", quantity=60, seen=seen, actor=ANN)
    after = raw("p#12345", "w#12345")
    assert after is not None and changed(before, after) == {"Quantity"} and after["Quantity"] == {"S": "60"}
    [entry] = trail("p#12345")
    assert (entry.entity_kind, entry.warehouse_id, entry.action) == ("stock", "12345", "stock-set")


def test_a_stale_stock_form_gets_a_conflict(aws: None) -> None:
    stale = editing.snapshot(editing.stock_target("12345", "12345"))
    editing.stock_adjust(product_id="12345", warehouse_id="12345", delta=-5, reason="broken", actor=BOB)
    with pytest.raises(EditConflict) as caught:
        editing.stock_set(product_id="12345", warehouse_id="12345", quantity=60, seen=stale, actor=ANN)
    assert [(d.attribute, d.seen, d.now) for d in caught.value.drifts] == [("Quantity", "50", "45")]
    with pytest.raises(EditConflict):
        editing.stock_adjust(product_id="12345", warehouse_id="12345", delta=1, reason="found", seen=stale, actor=ANN)


def test_an_adjustment_keeps_its_reason_and_never_goes_below_zero(aws: None) -> None:
    editing.stock_adjust(product_id="99887", warehouse_id="12376", delta=-4, reason="inventory count", actor=ANN)
    after = raw("p#99887", "w#12376")
    assert after is not None and after["Quantity"] == {"S": "0"} and "GSI2-PK" not in after  # AWS's row lacks GSI2
    [entry] = trail("p#99887")
    assert entry.reason == "inventory count" and entry.action == "stock-adjust"
    with pytest.raises(InvalidInput, match="only 0 in stock"):
        editing.stock_adjust(product_id="99887", warehouse_id="12376", delta=-1, reason="x", actor=ANN)
    with pytest.raises(InvalidInput, match="reason"):
        editing.stock_adjust(product_id="99887", warehouse_id="12376", delta=1, reason="", actor=ANN)


def test_a_missing_stock_row_is_created_with_its_index_keys(aws: None) -> None:
    seen = editing.snapshot(editing.stock_target("12345", "12376"))
    assert seen == Snapshot(values={"Quantity": None}, exists=False)
    editing.stock_set(product_id="12345", warehouse_id="12376", quantity=3, seen=seen, actor=ANN)
    assert raw("p#12345", "w#12376") == {
        "PK": {"S": "p#12345"},
        "SK": {"S": "w#12376"},
        "EntityType": {"S": "warehouseItem"},
        "GSI2-PK": {"S": "w#12376"},
        "GSI2-SK": {"S": "p#12345"},
        "Quantity": {"S": "3"},
    }
    with pytest.raises(EditConflict):  # the same stale "missing" form again
        editing.stock_set(product_id="12345", warehouse_id="12376", quantity=4, seen=seen, actor=ANN)


def test_stock_of_an_unknown_product_or_warehouse_is_not_found(aws: None) -> None:
    with pytest.raises(NotFound, match="product"):
        editing.snapshot(editing.stock_target("404", "12345"))
    with pytest.raises(NotFound, match="warehouse"):
        editing.snapshot(editing.stock_target("12345", "404"))


def test_audit_entries_stay_out_of_every_access_pattern(aws: None) -> None:
    """AWS's walkthrough answers exactly as before after edits of every kind put entries in those partitions."""
    edit_customer(name="S")
    edit_product(price="1")
    seen = editing.snapshot(editing.warehouse_target("12345"))
    editing.warehouse_edit(warehouse_id="12345", seen=seen, name="W", actor=ANN)
    editing.stock_adjust(product_id="12345", warehouse_id="12345", delta=1, reason="r", actor=ANN)
    editing.stock_adjust(product_id="99887", warehouse_id="12376", delta=1, reason="r", actor=ANN)
    assert all(trail(pk) for pk in ("c#12345", "p#12345", "w#12345", "p#99887"))
    for name, args, expected in EXAMPLES:
        assert keys_of(run(name, *args)) == expected, name
    assert keys_of(run("getFavouritesByCustomerId", "12345")) == []


# --- the email-claims backfill ---------------------------------------------------------------------------------


def test_the_claims_backfill_claims_every_old_address_once(aws: None, checkpoint_table: str) -> None:
    put_raw(
        {
            "PK": {"S": "c#77"},
            "SK": {"S": "c#77"},
            "EntityType": {"S": "customer"},
            "Email": {"S": "Henrik@Example.com"},
        }
    )
    report = backfill.run(migrations.email_claims(), segments=2)
    assert (report.candidates, report.changed, report.skipped) == (4, 3, 1)  # c#77 shares Henrik's address
    holders = {a: (raw(f"email#{a}@example.com") or {}).get("CustomerId") for a in ("samaneh", "kathleen", "henrik")}
    assert holders["samaneh"] == {"S": "12345"} and holders["kathleen"] == {"S": "23456"}
    assert holders["henrik"] in ({"S": "54321"}, {"S": "77"})  # whichever segment came first
    again = backfill.run(migrations.email_claims(), segments=2, start_over=True)
    assert (again.changed, again.skipped) == (0, 4)
    with pytest.raises(EmailTaken, match="customer 23456"):
        edit_customer(email="kathleen@example.com")


# --- history ---------------------------------------------------------------------------------------------------


def test_a_products_history_holds_its_edits_and_its_stocks_newest_first_in_pages(aws: None) -> None:
    edit_product(price="1")
    editing.stock_adjust(product_id="12345", warehouse_id="12345", delta=2, reason="count", actor=BOB)
    edit_product(name="Renamed", price="2")
    first = history.entity_history(kind="product", entity_id="12345", limit=2)
    assert [(e.action, [c.attribute for c in e.changes or []]) for e in first.items] == [
        ("edit-product", ["Detail.Name", "Price"]),
        ("stock-adjust", ["Quantity"]),
    ]
    rest = history.entity_history(kind="product", entity_id="12345", limit=2, start_key=first.next_key)
    assert [e.action for e in rest.items] == ["edit-product"] and rest.next_key is None
    assert history.entity_history(kind="customer", entity_id="12345").items == []
    with pytest.raises(InvalidInput):
        history.entity_history(kind="order", entity_id="12345")


def test_an_old_email_that_is_no_address_does_not_block_a_name_edit(shop_table: str) -> None:
    put_raw({"PK": {"S": "c#5"}, "SK": {"S": "c#5"}, "EntityType": {"S": "customer"}, "Email": {"S": "n/a"}})
    edit_customer("5", name="Five")
    after = raw("c#5")
    assert after is not None and after["Name"] == {"S": "Five"} and after["Email"] == {"S": "n/a"}
