"""The projection is pure: these need no DynamoDB."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from adminview import projection
from adminview.models import pending_shard
from adminview.projection import Delete, Put
from dynamo import ddb_json

ids = st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True)
INDEXED = ("PENDING", "SHIPPED", "CANCELLED")  # DELIVERED and unknown statuses are not listed
statuses = st.one_of(st.none(), st.sampled_from(["PENDING", "SHIPPED", "DELIVERED", "CANCELLED", "weird"]))


def S(value: str) -> dict[str, str]:
    return {"S": value}


def order_image(oid: str, cid: str, status: str | None, **extra: Any) -> dict[str, Any]:
    image = {"PK": S("o#" + oid), "SK": S("c#" + cid), "EntityType": S("order"), **extra}
    if status is not None:
        image["Status"] = S(status)
    return image


@given(ids, ids, statuses, st.booleans())
def test_order_is_in_its_status_list_exactly_while_it_has_that_status(
    oid: str, cid: str, status: str | None, with_date: bool
) -> None:
    extra = {"Date": S("2026-01-01T00:00:00")} if with_date else {}
    [summary] = projection.project_item(order_image(oid, cid, status, **extra), shards=4)
    assert ("GSI1PK" in summary) == (status in INDEXED)
    assert summary.get("GSI1PK", {}).get("S", "").startswith("PENDING#") == (status == "PENDING")
    if status in INDEXED:
        assert summary["GSI1PK"]["S"] == f"{status}#{pending_shard(oid, 4)}"
    assert summary["GSI4PK"] == S("c#" + cid)
    assert summary["OrderId"] == S(oid)


@given(ids, ids, statuses, statuses)
def test_a_status_change_rewrites_the_summary_with_the_new_status_keys(
    oid: str, cid: str, a: str | None, b: str | None
) -> None:
    ops = projection.project(order_image(oid, cid, a), order_image(oid, cid, b), shards=3)
    assert len(ops) == 1 and isinstance(ops[0], Put)  # a Put replaces the item: REMOVEs the GSI1 keys
    assert ("GSI1PK" in ops[0].item) == (b in INDEXED)


@given(
    st.dictionaries(
        st.sampled_from(["PK", "SK", "EntityType", "Status", "Date", "GSI2-PK", "Detail"]),
        st.one_of(st.builds(S, st.text(max_size=12)), st.just({"M": {}}), st.just({"N": "1"})),
    )
)
def test_arbitrary_images_never_crash(image: dict[str, Any]) -> None:
    ops = projection.project(None, image)
    back = projection.project(image, None)
    assert {op.key for op in ops} == {op.key for op in back}
    assert all(isinstance(op, Delete) for op in back)


def test_buyers_follow_the_order_status() -> None:
    item = {"PK": S("o#1"), "SK": S("p#7"), "EntityType": S("orderItem"), "GSI2-PK": S("c#9")}
    [buyer] = projection.project_item(item)
    assert buyer["GSI2PK"] == S("p#7") and buyer["GSI2SK"] == S("c#9#o#1")
    [summary] = projection.project_item(order_image("1", "9", "CANCELLED"))
    [fixed] = projection.derive_buyers(summary, [buyer])
    assert "GSI2PK" not in fixed
    [summary] = projection.project_item(order_image("1", "9", None))  # unknown status: not cancelled
    assert projection.derive_buyers(summary, [buyer]) == []


def test_invoice_payments_map_transactions_to_the_order() -> None:
    payments = {"L": [{"M": {"TransactionId": S("t1")}}, {"M": {"Type": S("Cash")}}]}
    invoice: dict[str, Any] = {
        "PK": S("o#1"),
        "SK": S("i#5"),
        "EntityType": S("invoice"),
        "Detail": {"M": {"Payments": payments}},
    }
    [ref] = projection.project_item(invoice)
    assert ref["GSI3PK"] == S("t#t1") and ref["OrderId"] == S("1")
    assert projection.project_item({**invoice, "Detail": {"M": {}}}) == []


def test_aws_sample_items_without_our_attributes() -> None:
    order = {"PK": S("o#12345"), "SK": S("c#12345"), "EntityType": S("order"), "Date": S("2020-06-21T19:10:00")}
    [summary] = projection.project_item(order)
    assert "Status" not in summary and "GSI1PK" not in summary and "Total" not in summary
    assert projection.project_item({"PK": S("p#1"), "SK": S("w#1"), "EntityType": S("warehouseItem")}) == []


def test_profiles_carry_the_lower_cased_email_key_only_when_they_have_an_email() -> None:
    customer = {"PK": {"S": "c#7"}, "SK": {"S": "c#7"}, "EntityType": {"S": "customer"}}
    (with_email,) = projection.project_item({**customer, "Email": {"S": " Ada@Example.COM "}})
    assert with_email["GSI5PK"] == {"S": "email#ada@example.com"} and with_email["GSI5SK"] == {"S": "c#7"}
    (without,) = projection.project_item(customer)
    assert "GSI5PK" not in without and "GSI5SK" not in without
    (blank,) = projection.project_item({**customer, "Email": {"S": "  "}})
    assert "GSI5PK" not in blank


@given(ids, ids, ids, statuses, statuses)
def test_project_puts_what_the_new_image_implies_and_deletes_only_what_it_no_longer_does(
    oid: str, cid: str, other_cid: str, a: str | None, b: str | None
) -> None:
    old, new = order_image(oid, cid, a), order_image(oid, other_cid, b)
    ops = projection.project(old, new, shards=2)
    puts = {op.key for op in ops if isinstance(op, Put)}
    deletes = {op.key for op in ops if isinstance(op, Delete)}
    assert puts == {ddb_json.item_key(i) for i in projection.project_item(new, shards=2)}
    assert deletes == {ddb_json.item_key(i) for i in projection.project_item(old, shards=2)} - puts
    assert projection.project(new, new, shards=2) == [op for op in ops if isinstance(op, Put)]  # a replay: same puts
