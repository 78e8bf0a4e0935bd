from __future__ import annotations

import pytest

from adminview import tables
from adminview.core import schema, values
from adminview.reads import returns_reads
from adminview.repair import rebuild
from adminview.sync.poller import Poller
from dynamo import ddb_json, item_codec
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview.returns_traffic import put_return
from tests.adminview_helpers import delete_view_item, put_view_item, sync_now, view_item


def test_domain_writes_flow_into_the_view(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=2, products=2)
    a = orders.order_place(customer_id="1001", lines=[OrderLine("2001", 2)], order_id="o1")
    orders.order_place(customer_id="1002", lines=[OrderLine("2001", 1), OrderLine("2002", 1)], order_id="o2")
    stats = sync_now()
    assert stats.records > 0 and stats.dead_lettered == 0
    summary = view_item("o#o1", "#order")
    status_pk = ddb_json.string(summary, schema.ORDERS_BY_STATUS.hash_key)
    assert (
        ddb_json.string(summary, "Status") == "PENDING" and status_pk is not None and status_pk.startswith("PENDING#")
    )
    assert ddb_json.string(view_item("c#1001", "#profile"), "Name") == "Ada Lovelace"
    assert rebuild.verify().clean

    orders.order_ship(order_id=a.order_id)
    orders.order_cancel(order_id="o2")
    sync_now()
    summary = view_item("o#o1", "#order")
    status_pk = ddb_json.string(summary, schema.ORDERS_BY_STATUS.hash_key)
    assert (
        ddb_json.string(summary, "Status") == "SHIPPED" and status_pk is not None and status_pk.startswith("SHIPPED#")
    )
    found = rebuild.verify()
    assert found.clean, found.summary()
    again = sync_now()
    assert again.records == 0
    replay = sync_now(replay=True)
    assert replay.applied == 0 and replay.skipped == replay.records > 0
    assert rebuild.verify().clean


def test_verify_reports_and_rebuild_repairs(
    shop_table: str, admin_view_table: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from django.core.management import call_command

    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    sync_now()
    delete_view_item("o#o1", "#order")
    put_view_item("c#ghost", "#profile", schema.PROFILE, Name="nobody")
    with pytest.raises(SystemExit) as exit_info:
        call_command("verify_adminview")
    assert exit_info.value.code == 1
    out = capsys.readouterr().out
    assert "missing 1, extra 1, differing 0" in out and "o#o1" in out and "c#ghost" in out
    assert "  missing: o#o1 #order  /orders/o1/consistency/\n" in out  # the page that explains that order
    assert "  extra: c#ghost #profile\n" in out
    call_command("rebuild_adminview")
    call_command("verify_adminview")
    assert "admin view OK" in capsys.readouterr().out


def test_a_follower_started_on_an_empty_returns_stream_applies_its_first_return(
    shop_table: str, admin_view_table: str
) -> None:
    # given a follower that has read every stream to its end while the returns table was still empty
    follower = Poller.for_sources(idle_s=0.05)
    follower.run(follow=False)
    # when the returns service writes its first return, then the follower's next round applies it
    put_return("1", "o1", "1001", "REQUESTED", "2026-06-01T10:00:00", [("2001", 1)])
    assert follower.run(follow=False).applied == 1
    assert [r.return_id for r in returns_reads.returns().rows] == ["1"]


def test_verify_reports_a_customers_refunded_sum_that_is_off_and_rebuild_repairs_it(
    shop_table: str, admin_view_table: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from django.core.management import call_command

    from returns import services as returns
    from shop.order_builders import PaymentSpec

    # given a paid order cancelled with its refund (which names the order's customer), synced
    factories.shop_with(customers=1, products=1)
    payment = PaymentSpec("credit card", "10.50", transaction_id="tx-o1")
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], payments=[payment], order_id="o1")
    returns.order_cancel_with_refund(order_id="o1")
    sync_now()
    key = schema.customer_refunded("1001")
    assert (values.number(item_codec.decode(view_item(*key)), schema.REFUNDED) or 0) > 0
    # when the customer's refunded sum is set wrong by hand, long ago (a sum changed since the walk began is left
    # for the next walk)
    client, table = tables.view_client()
    client.update_item(
        TableName=table,
        Key=ddb_json.key(*key),
        UpdateExpression="SET #r = :r, #at = :at",
        ExpressionAttributeNames={"#r": schema.REFUNDED, "#at": schema.CHANGED_AT},
        ExpressionAttributeValues={":r": {"N": "999"}, ":at": {"N": "1"}},
    )
    # then verify says so, and a rebuild puts it right
    with pytest.raises(SystemExit):
        call_command("verify_adminview")
    out = capsys.readouterr().out
    assert "c#1001 #refunded" in out
    call_command("rebuild_adminview")
    call_command("verify_adminview")
    assert "admin view OK" in capsys.readouterr().out
