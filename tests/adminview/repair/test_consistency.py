"""One order's consistency (``adminview.repair.consistency``) on DynamoDB Local: the three verdicts, the repair, and the
repair racing the sync."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from adminview.core import schema
from adminview.core.schema import list_shards
from adminview.reads import sync_freshness
from adminview.repair import consistency, rebuild, repair
from adminview.repair.consistency import BEHIND, DIFFERS, IN_SYNC
from adminview.repair.table_walk import Table
from adminview.repair.view_diff import Change
from adminview.sync import sync_status
from adminview.tables import ViewItem
from dynamo import ddb_json
from dynamo.client import client_of
from shop import orders
from shop.audit import Actor
from shop.errors import InvalidInput, NotFound, OrderConflict
from shop.models import AuditEntry, ShopItem
from shop.orders import OrderLine, PaymentSpec
from tests import factories
from tests.adminview.returns_workload import put_refund, put_return, set_status
from tests.adminview_helpers import sync_now, view_item

pytestmark = pytest.mark.ddb_local

OID = "c1"
PK = "o#" + OID
BOSS = Actor("boss", request_id="req-1")


def _no_sleep(_seconds: float) -> None:
    return None


@pytest.fixture
def order(shop_table: str, admin_view_table: str) -> str:
    """A pending order with two lines and a paid invoice, applied to the view."""
    factories.shop_with(customers=1, products=2)
    orders.order_place(
        customer_id="1001",
        lines=[OrderLine("2001", 2), OrderLine("2002", 1)],
        placed_at=datetime(2024, 5, 1, 12, 0),
        order_id=OID,
        payments=[PaymentSpec("Visa", "31.50", "tx-" + OID)],
    )
    sync_now()
    return OID


def _view() -> tuple[Any, str]:
    return client_of(ViewItem), str(ViewItem.Meta.table_name)


PAYMENT = schema.payment("tx-" + OID, OID)  # the order's payment entry (AV5)


def _lose(sk: str) -> None:
    _lose_key((PK, sk))


def _lose_key(key: tuple[str, str]) -> None:
    client, table = _view()
    client.delete_item(TableName=table, Key={"PK": {"S": key[0]}, "SK": {"S": key[1]}})


def _set(sk: str, name: str, value: dict[str, Any]) -> None:
    client, table = _view()
    client.update_item(
        TableName=table,
        Key={"PK": {"S": PK}, "SK": {"S": sk}},
        UpdateExpression="SET #n = :v",
        ExpressionAttributeNames={"#n": name},
        ExpressionAttributeValues={":v": value},
    )


def _check(**kwargs: Any) -> consistency.Report:
    return consistency.order_consistency(order_id=OID, sleep=kwargs.pop("sleep", _no_sleep), **kwargs)


def _repair_entries() -> list[AuditEntry]:
    return [e for e in AuditEntry.query(PK, AuditEntry.sk.startswith("AUDIT#")) if "repair" in e.action]


def test_an_untouched_order_is_in_sync_with_its_watermarks(order: str) -> None:
    report = _check()
    assert report.verdict == IN_SYNC and report.differences == []
    assert report.expected == report.stored and (PK, "#order") in report.stored
    assert [m.sk for m in report.watermarks] == ["c#1001", "i#" + OID, "p#2001", "p#2002"]
    assert all(m.seq is not None and m.seq.isdigit() and m.in_shop for m in report.watermarks)
    assert report.rev == 1 and report.applied_at is not None and report.applied_at <= report.read_at


def test_a_lost_entry_differs(order: str) -> None:
    _lose_key(PAYMENT)
    pauses: list[float] = []
    report = _check(sleep=pauses.append)
    assert report.verdict == DIFFERS and "anchor" in report.reason
    assert [(d.kind, d.key, d.contradiction) for d in report.differences] == [("missing", PAYMENT, True)]
    assert pauses == [consistency.SETTLE_S]  # the sync might have been half-way: looked twice


def test_a_changed_summary_attribute_differs_by_the_orders_version(order: str) -> None:
    _set("#order", "ItemCount", {"N": "99"})  # an attribute only the summary holds (the entries show its Total)
    report = _check()
    assert report.verdict == DIFFERS and "version 1" in report.reason
    (difference,) = report.differences
    assert difference.kind == "differing" and difference.key == (PK, "#order")
    assert [(a.name, a.expected, a.stored) for a in difference.attributes] == [("ItemCount", 3, 99)]


def test_a_changed_total_differs_and_contradicts_the_customers_entry(order: str) -> None:
    _set("#order", "Total", {"S": "999.00"})
    report = _check()
    assert report.verdict == DIFFERS
    changed = {d.key: [(a.name, a.expected, a.stored) for a in d.attributes] for d in report.differences}
    assert changed[(PK, "#order")] == [("Total", "31.50", "999.00")]
    assert set(changed) == {(PK, "#order")}  # the entry is what the shop implies, but not what the summary does:
    assert "anchor" in report.reason  # the view contradicts itself


def test_a_lost_pending_index_key_differs_by_the_anchor(order: str) -> None:
    client, table = _view()
    client.update_item(
        TableName=table, Key={"PK": {"S": PK}, "SK": {"S": "#order"}}, UpdateExpression="REMOVE GSI1PK, GSI1SK"
    )
    report = _check()
    assert report.verdict == DIFFERS
    assert [a.name for a in report.differences[0].attributes] == ["GSI1PK", "GSI1SK"]


def test_an_order_shipped_while_the_sync_is_stopped_is_behind(order: str) -> None:
    orders.order_ship(order_id=OID, actor=Actor("packer"))
    report = _check()
    assert report.verdict == BEHIND and not any(d.contradiction for d in report.differences)
    kinds = {(d.kind, (d.expected or d.stored or {}).get("Kind")) for d in report.differences}
    # the summary and what the order counted, and the audit entry's activity entries
    assert kinds == {("differing", "order"), ("differing", "counted"), ("missing", "activity")}
    summary = next(d for d in report.differences if d.key == (PK, "#order"))
    assert {"Status", "Version"} <= {a.name for a in summary.attributes}

    sync_now()
    assert _check().verdict == IN_SYNC


def test_a_sync_proven_caught_up_after_the_read_turns_behind_into_differs(order: str) -> None:
    orders.order_ship(order_id=OID)  # not applied, yet the heartbeats will say every change was
    for beat in sync_freshness.heartbeats():
        assert beat.shard is not None
        stream = beat.writer.split("|")[0]
        sync_status.record_caught_up(stream, beat.shard, clock=lambda: time.time() + 60)
    report = _check()
    assert report.verdict == DIFFERS and "every change" in report.reason


def test_the_anchor_rewritten_during_the_read_is_looked_at_again(order: str, monkeypatch: pytest.MonkeyPatch) -> None:
    orders.order_ship(order_id=OID)
    real_read, looks = consistency.read, list[consistency.Look]()

    def read_while_the_sync_writes(order_id: str) -> consistency.Look:
        seen = real_read(order_id)
        if not looks:  # as if the sync wrote the anchor between the first read of it and the view's
            moved: dict[tuple[str, str], dict[str, Any] | None] = {
                (PK, "#order"): dict(seen.anchor_after or {}, Rev=Decimal(0))
            }
            seen = replace(seen, reading=replace(seen.reading, anchors_after=moved))
        looks.append(seen)
        return seen

    def sync_meanwhile(_seconds: float) -> None:
        sync_now()

    monkeypatch.setattr(consistency, "read", read_while_the_sync_writes)
    first = consistency.judge(consistency.read(OID), list_shards())
    assert first.verdict == BEHIND and first.unsettled and "written while they were read" in first.reason
    looks.clear()
    assert _check(sleep=sync_meanwhile).verdict == IN_SYNC and len(looks) == 2  # the second look decides


def test_a_batch_caught_between_its_view_write_and_its_anchor_write_is_looked_at_again(order: str) -> None:
    added = schema.payment("tx-more", OID)  # a second payment, recorded on the order's invoice
    shop_client, shop = client_of(ShopItem), str(ShopItem.Meta.table_name)
    shop_client.update_item(
        TableName=shop,
        Key={"PK": {"S": PK}, "SK": {"S": "i#" + OID}},
        UpdateExpression="SET Detail.Payments = list_append(Detail.Payments, :more)",
        ExpressionAttributeValues={":more": {"L": [{"M": {"TransactionId": {"S": "tx-more"}}}]}},
    )
    client, table = _view()  # the sync's view write for it: the payment entry, before the anchor's
    item = {"PK": {"S": added[0]}, "SK": {"S": added[1]}, "Kind": {"S": "payment"}}
    client.put_item(TableName=table, Item={**item, "OrderId": {"S": OID}, "TransactionId": {"S": "tx-more"}})
    first = consistency.judge(consistency.read(OID), list_shards())
    assert first.verdict == DIFFERS and first.unsettled

    def anchor_write_lands(_seconds: float) -> None:
        sync_now()

    assert _check(sleep=anchor_write_lands).verdict == IN_SYNC


def test_unknown_and_malformed_order_ids(order: str) -> None:
    with pytest.raises(NotFound):
        consistency.order_consistency(order_id="nope")
    with pytest.raises(InvalidInput):
        consistency.order_consistency(order_id="o#bad id!")
    with pytest.raises(NotFound):
        consistency.order_repair(order_id="nope", actor=BOSS)


def test_repair_rewrites_the_order_and_audits_it_in_the_same_transaction(order: str) -> None:
    _lose_key(PAYMENT)
    _set("#order", "Total", {"S": "999.00"})
    repaired = consistency.order_repair(order_id=OID, actor=BOSS, sleep=_no_sleep)
    assert sorted(c.key for c in repaired.changes) == sorted([(PK, "#order"), PAYMENT])
    assert repaired.entry is not None and repaired.attempts == 1
    (entry,) = _repair_entries()
    assert (entry.action, entry.user, entry.request_id) == ("repair-view", "boss", "req-1")
    assert entry.detail is not None and "missing payment" in entry.detail and "(Total)" in entry.detail
    assert _check().verdict == IN_SYNC  # its activity items were written with it

    sync_now()  # the audit entry's own record writes the same activity items again
    assert _check().verdict == IN_SYNC and rebuild.verify(settle_s=0).clean
    orders.order_cancel(order_id=OID)  # later records still apply
    sync_now()
    assert _check().verdict == IN_SYNC


def test_repair_of_an_order_in_sync_writes_nothing(order: str) -> None:
    repaired = consistency.order_repair(order_id=OID, actor=BOSS)
    assert repaired.changes == [] and repaired.entry is None
    assert _repair_entries() == []


@pytest.mark.parametrize("conditional", [True, False], ids=["conditional", "unconditional"])
def test_repair_racing_the_sync_never_writes_an_older_state(
    order: str, conditional: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    _lose_key(PAYMENT)
    real = consistency._commit
    raced: list[int] = []

    def commit(view: Table, actions: list[dict[str, Any]]) -> None:
        if not raced:  # between the repair's reads (PENDING) and its write, the sync applies SHIPPED
            raced.append(1)
            orders.order_ship(order_id=OID)
            sync_now()
        if not conditional:
            actions = [
                {k: {n: v for n, v in body.items() if "Expression" not in n}} for a in actions for k, body in a.items()
            ]
        real(view, actions)

    monkeypatch.setattr(consistency, "_commit", commit)
    repaired = consistency.order_repair(order_id=OID, actor=BOSS, sleep=_no_sleep)
    status = ddb_json.string(view_item(PK, "#order"), "Status")
    if conditional:
        assert repaired.attempts == 2 and status == "SHIPPED"
        assert len(_repair_entries()) == 1  # the attempt that lost wrote no audit entry either
        assert _check().verdict == IN_SYNC
    else:  # without the condition the repair writes the PENDING it read over the SHIPPED the sync applied
        assert repaired.attempts == 1 and status == "PENDING"


def test_repair_gives_up_when_the_order_keeps_changing(order: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _lose_key(PAYMENT)

    def always_beaten(_view: Table, _actions: list[dict[str, Any]]) -> None:
        raise repair.Contended("ConditionalCheckFailed")

    monkeypatch.setattr(consistency, "_commit", always_beaten)
    with pytest.raises(OrderConflict, match="keeps changing"):
        consistency.order_repair(order_id=OID, actor=BOSS, sleep=_no_sleep)
    assert _repair_entries() == [] and _check().verdict == DIFFERS


def test_describe_keeps_the_audit_detail_short() -> None:
    changes = [Change("missing", (PK, f"AUDIT#{n:04d}"), {}, None) for n in range(100)]
    detail = consistency.describe(changes)
    assert detail.startswith("rewrote 100 view items: missing AUDIT#0000") and len(detail) <= consistency.DETAIL_CHARS


# --- the order's refunds and returns, in the returns table -----------------------------------------------------

REFUNDS = schema.refunds_anchor(OID)
RETURN = schema.return_anchor("r#r1")


@pytest.fixture
def returned(order: str) -> str:
    """The order with a refund of a return and a return whose goods are back, written by the returns service and
    applied to the view."""
    put_return("r1", OID, "1001", "RECEIVED", "2024-05-10T09:00:00", ("2001", "1"))
    put_refund("f1", OID, "12.50", "2024-05-11T10:00:00", "r1")
    sync_now()
    return order


def test_an_orders_refunds_and_returns_are_in_sync_partition_by_partition(returned: str) -> None:
    report = _check()
    assert report.verdict == IN_SYNC and report.differences == []
    assert [(p.source, p.pk, p.verdict) for p in report.parts] == [
        ("shop", PK, IN_SYNC),
        ("returns", PK, IN_SYNC),
        ("returns", "r#r1", IN_SYNC),
    ]
    assert {REFUNDS, RETURN} <= set(report.stored) and report.expected == report.stored
    assert [m.sk for m in report.parts[1].watermarks] == ["f#f1"] and report.parts[1].watermarks[0].seq
    assert [m.sk for m in report.parts[2].watermarks] == ["r#r1"]


def test_a_lost_refunds_anchor_differs_and_the_repair_rewrites_it(returned: str) -> None:
    # given the view lost the order's refunds (what it counted of them is still there)
    _lose_key(REFUNDS)
    report = _check()
    # then the refunds partition differs: what was counted contradicts the (missing) anchor; the shop's is in sync
    assert report.verdict == DIFFERS and [p.verdict for p in report.parts] == [IN_SYNC, DIFFERS, IN_SYNC]
    assert [(d.kind, d.key) for d in report.differences] == [("missing", REFUNDS)]
    assert schema.counted(REFUNDS) in report.contradicted
    # when a superuser repairs the order, then the refunds are back, audited, and later records still apply
    repaired = consistency.order_repair(order_id=OID, actor=BOSS, sleep=_no_sleep)
    assert [c.key for c in repaired.changes] == [REFUNDS] and repaired.entry is not None
    assert repaired.entry.detail is not None and "missing refunds" in repaired.entry.detail
    assert _check().verdict == IN_SYNC and rebuild.verify(settle_s=0).clean
    put_refund("f2", OID, "3.00", "2024-05-12T10:00:00")
    sync_now()
    assert _check().verdict == IN_SYNC


def test_a_lost_return_entry_differs_and_is_repaired_with_the_shops_partition(returned: str) -> None:
    # given the customer's entry of the return lost, and the order's payment entry too
    entry = next(k for k in _check().stored if k[0].startswith("c#") and "r1" in k[1])
    _lose_key(entry)
    _lose_key(PAYMENT)
    report = _check()
    assert report.verdict == DIFFERS and [p.verdict for p in report.parts] == [DIFFERS, IN_SYNC, DIFFERS]
    assert {(d.kind, d.key, d.contradiction) for d in report.differences} == {
        ("missing", entry, True),
        ("missing", PAYMENT, True),
    }
    # when repaired, then both partitions' items are rewritten in the one transaction
    repaired = consistency.order_repair(order_id=OID, actor=BOSS, sleep=_no_sleep)
    assert sorted(c.key for c in repaired.changes) == sorted([entry, PAYMENT]) and repaired.attempts == 1
    assert len(_repair_entries()) == 1 and _check().verdict == IN_SYNC


def test_a_return_changed_while_the_sync_is_stopped_is_behind(returned: str) -> None:
    set_status("r1", "REFUNDED")
    report = _check()
    assert report.verdict == BEHIND and [p.verdict for p in report.parts] == [IN_SYNC, IN_SYNC, BEHIND]
    assert not any(d.contradiction for d in report.differences) and "returns table" in report.reason
    (difference,) = (d for d in report.differences if d.key == RETURN)
    assert [(a.name, a.expected, a.stored) for a in difference.attributes if a.name == "Status"] == [
        ("Status", "REFUNDED", "RECEIVED")
    ]
    sync_now()
    assert _check().verdict == IN_SYNC


def test_a_repair_racing_the_returns_sync_never_writes_an_older_state(
    returned: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given the refunds anchor lost, and a refund added and applied between the repair's reads and its write
    _lose_key(REFUNDS)
    real = consistency._commit
    raced: list[int] = []

    def commit(view: Table, actions: list[dict[str, Any]]) -> None:
        if not raced:
            raced.append(1)
            put_refund("f2", OID, "3.00", "2024-05-12T10:00:00")
            sync_now()
        real(view, actions)

    monkeypatch.setattr(consistency, "_commit", commit)
    # then the first attempt's condition fails, the second one reads both refunds
    repaired = consistency.order_repair(order_id=OID, actor=BOSS, sleep=_no_sleep)
    assert repaired.attempts == 2 and _check().verdict == IN_SYNC and rebuild.verify(settle_s=0).clean
