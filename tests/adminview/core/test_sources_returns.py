"""What the returns service's items imply for the view (``adminview.core.sources.returns``): pure, and through the
streams of both tables on DynamoDB Local, written as another service would write them (plain PutItem)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from adminview.core import numbers, schema, values
from adminview.core.sources.returns import SOURCE, RefundsState, ReturnState
from adminview.reads import number_reads, returns_reads
from adminview.repair import rebuild
from adminview.tables import view_client
from dynamo import ddb_json, item_codec
from dynamo.client import client_of
from returns.models import ReturnsItem
from tests import factories
from tests.adminview_helpers import sync_now


def S(value: str) -> dict[str, str]:
    return {"S": value}


def a_return(rid: str, oid: str, cid: str, status: str, requested: str, *lines: tuple[str, str]) -> dict[str, Any]:
    return {
        "PK": S("r#" + rid), "SK": S("r#" + rid), "GSI1-PK": S("o#" + oid), "GSI1-SK": S("r#" + rid),
        "EntityType": S("return"), "OrderId": S(oid), "CustomerId": S(cid), "Status": S(status),
        "Requested": S(requested),
        "Lines": {"L": [{"M": {"ProductId": S(p), "Quantity": S(q), "Reason": S("too big")}} for p, q in lines]},
    }  # fmt: skip


def a_refund(fid: str, oid: str, amount: str, day: str) -> dict[str, Any]:
    return {
        "PK": S("o#" + oid), "SK": S("f#" + fid), "EntityType": S("refund"), "Amount": S(amount),
        "Date": S(day + "T10:00:00"), "Reference": S("PSP-" + fid),
    }  # fmt: skip


def test_a_return_is_listed_under_its_status_and_counts_its_units_once_received() -> None:
    image = item_codec.decode(a_return("7", "42", "1001", "REQUESTED", "2026-03-04T10:00:00", ("2001", "2")))
    key = SOURCE.anchor_of(("r#7", "r#7"), image)
    assert key == schema.return_anchor("r#7")
    state = ReturnState.read(key, None)
    state.apply("r#7", image)
    requested = state.implied(list_shards=2)
    assert requested.anchor is not None and requested.sums == {}
    index = schema.ORDERS_BY_STATUS
    assert requested.anchor[index.hash_key] == schema.return_status_partition("REQUESTED", schema.shard_of("7", 2))
    assert set(requested.entries) == {schema.customer_return("1001", "2026-03-04T10:00:00", "7")}
    state.apply("r#7", {**image, "Status": "RECEIVED"})
    received = state.implied(list_shards=2)
    month = schema.returned_units("2001", schema.sum_shard(key), "2026-03")
    assert received.sums == {month: {"Units": Decimal(2), "Restocked": Decimal(2)}}


def _sums_of(status: str, lines: list[dict[str, str]], **steps: str) -> dict[str, dict[str, Decimal]]:
    image = {**item_codec.decode(a_return("7", "42", "1001", status, "2026-03-04T10:00:00")), **steps, "Lines": lines}
    key = schema.return_anchor("r#7")
    state = ReturnState.read(key, None)
    state.apply("r#7", image)
    sums = state.implied(list_shards=1).sums or {}
    return {k[0].rpartition("#")[0].rpartition("#")[2]: v for k, v in sums.items()}


def test_received_restocked_and_damaged_units_are_kept_apart() -> None:
    lines = [
        {"ProductId": "2001", "Quantity": "3", "Reason": "DAMAGED", "Received": "2", "Restocked": "1"},
        {"ProductId": "2002", "Quantity": "2", "Reason": "SIZE", "Received": "2", "Restocked": "2"},
        {"ProductId": "2003", "Quantity": "1", "Reason": "OTHER", "Received": "0", "Restocked": "0"},
    ]
    done = {"Received": "2026-03-06T10:00:00", "Refunded": "2026-03-07T10:00:00"}
    expected = {
        "2001": {"Units": Decimal(2), "Restocked": Decimal(1), "Damaged": Decimal(1)},
        "2002": {"Units": Decimal(2), "Restocked": Decimal(2)},
    }
    assert _sums_of("RECEIVED", lines, Received=done["Received"]) == expected
    assert _sums_of("REFUNDED", lines, **done) == expected
    assert _sums_of("APPROVED", lines) == expected  # the figures follow the lines, whatever the status says


def test_a_refund_without_receipt_adds_no_units_and_old_received_returns_count_every_line() -> None:
    lines = [{"ProductId": "2001", "Quantity": "3", "Reason": "too big"}]
    assert _sums_of("REFUNDED", lines, Approved="2026-03-05T10:00:00", Refunded="2026-03-06T10:00:00") == {}
    old = {"2001": {"Units": Decimal(3), "Restocked": Decimal(3)}}
    assert _sums_of("REFUNDED", lines) == old and _sums_of("RECEIVED", lines) == old
    assert _sums_of("APPROVED", lines) == {} and _sums_of("REQUESTED", lines) == {}


def test_figures_out_of_bounds_stay_within_the_line() -> None:
    lines = [{"ProductId": "2001", "Quantity": "2", "Received": "5", "Restocked": "9"}]
    assert _sums_of("RECEIVED", lines) == {"2001": {"Units": Decimal(2), "Restocked": Decimal(2)}}
    lines = [{"ProductId": "2001", "Quantity": "2", "Received": "x", "Restocked": "-1"}]
    assert _sums_of("RECEIVED", lines) == {}


def test_an_orders_refunds_add_to_their_days() -> None:
    key = SOURCE.anchor_of(("o#42", "f#1"), item_codec.decode(a_refund("1", "42", "10.50", "2026-03-04")))
    assert key == schema.refunds_anchor("42")
    state = RefundsState.read(key, None)
    for fid, amount in (("1", "10.50"), ("2", "4.25")):
        state.apply("f#" + fid, item_codec.decode(a_refund(fid, "42", amount, "2026-03-04")))
    day = schema.refunds_day(schema.sum_shard(key), "2026-03-04")
    assert state.implied(1).sums == {day: {"Refunds": Decimal(2), "Refunded": Decimal("14.75")}}
    assert SOURCE.anchor_of(("o#42", "i#1"), {"EntityType": "invoice"}) is None


def test_a_refund_naming_its_customer_adds_to_what_they_were_refunded_one_without_only_to_its_day() -> None:
    # given an order's refunds: one naming its customer (as this product writes them), one another service wrote
    key = schema.refunds_anchor("42")
    state = RefundsState.read(key, None)
    named = {**item_codec.decode(a_refund("1", "42", "10.50", "2026-03-04")), "CustomerId": "1001"}
    state.apply("f#1", named)
    state.apply("f#2", item_codec.decode(a_refund("2", "42", "4.25", "2026-03-04")))

    # when their sums are implied
    sums = state.implied(1).sums

    # then both count in their day, only the named one in the customer's refunded total
    day = schema.refunds_day(schema.sum_shard(key), "2026-03-04")
    assert sums == {
        day: {"Refunds": Decimal(2), "Refunded": Decimal("14.75")},
        schema.customer_refunded("1001"): {"Refunded": Decimal("10.50")},
    }
    assert schema.customer_refunded("1001") == ("c#1001", "#refunded") and schema.is_sum(("c#1001", "#refunded"))
    assert schema.is_totalled(("c#1001", "#refunded")) and not schema.is_sum(schema.profile("1001"))
    # and the anchor keeps the customer, so a rebuild reading it back implies the same
    stored = state.implied(1).anchor
    assert stored is not None
    assert RefundsState.read(key, stored).implied(1).sums == sums


def _put(*items: dict[str, Any]) -> None:
    client, table = client_of(ReturnsItem), str(ReturnsItem.Meta.table_name)
    for item in items:
        client.put_item(TableName=table, Item=item)


def test_returns_written_by_another_service_reach_the_view(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=2, products=2)
    _put(
        a_return("1", "o1", "1001", "REQUESTED", "2026-03-02T10:00:00", ("2001", "1")),
        a_return("2", "o2", "1001", "RECEIVED", "2026-03-01T10:00:00", ("2001", "3"), ("2002", "1")),
        a_return("3", "o3", "1002", "REJECTED", "2026-02-01T10:00:00", ("2002", "1")),
        a_refund("1", "o2", "30.00", "2026-03-05"),
        a_refund("2", "o3", "5.50", "2026-03-05"),
    )
    stats = sync_now()
    assert stats.dead_lettered == 0
    queue = returns_reads.returns(status="open").rows
    assert [(r.return_id, r.status) for r in queue] == [("2", "RECEIVED"), ("1", "REQUESTED")]  # oldest first
    assert [r.return_id for r in returns_reads.returns(status="REJECTED").rows] == ["3"]
    assert [r.return_id for r in returns_reads.customer_returns(customer_id="1001").rows] == ["1", "2"]
    assert number_reads.returned(product_id="2001").units == 3 and number_reads.returned(product_id="2002").units == 1
    days = number_reads.refunds_daily(start=date(2026, 3, 4), end=date(2026, 3, 5))
    assert [(d.refunds, d.refunded) for d in days] == [(0, Decimal("0.00")), (2, Decimal("35.50"))]
    assert rebuild.verify(settle_s=0).clean

    client, table = client_of(ReturnsItem), str(ReturnsItem.Meta.table_name)
    client.update_item(  # the service refunds return 2: it leaves the queue, its units stay counted
        TableName=table,
        Key=ddb_json.key("r#2", "r#2"),
        UpdateExpression="SET #s = :s",
        ExpressionAttributeNames={"#s": "Status"},
        ExpressionAttributeValues={":s": S("REFUNDED")},
    )
    client.delete_item(TableName=table, Key=ddb_json.key("o#o3", "f#2"))  # a refund taken back
    sync_now()
    assert [r.return_id for r in returns_reads.returns().rows] == ["1"]
    assert number_reads.returned(product_id="2001").units == 3
    days = number_reads.refunds_daily(start=date(2026, 3, 5), end=date(2026, 3, 5))
    assert [(d.refunds, d.refunded) for d in days] == [(1, Decimal("30.00"))]
    assert rebuild.verify(settle_s=0).clean


def test_a_view_counted_before_restocked_and_damaged_were_kept_is_put_right_by_a_rebuild(
    shop_table: str, admin_view_table: str
) -> None:
    # given a return received in part, one unit of it damaged, synced
    received = a_return("9", "o9", "1001", "RECEIVED", "2026-03-04T10:00:00", ("2001", "3"))
    received["Lines"]["L"][0]["M"] |= {"Received": S("2"), "Restocked": S("1")}
    _put(received)
    sync_now()
    figures = number_reads.returned(product_id="2001")
    assert (figures.units, figures.restocked, figures.damaged) == (2, 1, 1)
    assert rebuild.verify(settle_s=0).clean
    # when the view holds what the older code counted: the line's quantity, no restocked or damaged units
    anchor = schema.return_anchor("r#9")
    month = schema.returned_units("2001", schema.sum_shard(anchor), "2026-03")
    old = {month: {schema.UNITS: Decimal(3)}}
    client, table = view_client()
    client.put_item(TableName=table, Item=item_codec.encode(numbers.counted_item(schema.counted(anchor), old, 1)))
    client.put_item(TableName=table, Item=item_codec.encode({**values.key(*month), schema.UNITS: Decimal(3)}))
    assert number_reads.returned(product_id="2001").units == 3
    # then verify finds the difference, and a rebuild puts the figures right
    assert not rebuild.verify(settle_s=0).clean
    rebuild.rebuild()
    assert rebuild.verify(settle_s=0).clean
    figures = number_reads.returned(product_id="2001")
    assert (figures.units, figures.restocked, figures.damaged) == (2, 1, 1)
