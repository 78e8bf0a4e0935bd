"""Rebuild and verify while staff act on orders and returns, another service writes returns and refunds, and the
sync applies the records of both streams (DynamoDB Local, real streams, real poller).

The races that matter are forced, not left to luck: a hook runs the interfering change exactly between a
rebuild's read and its write (or between the sync's view write and its anchor write), and the same
scenario with the protection removed must end with a wrong view.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from adminview.core import anchor, schema
from adminview.repair import rebuild, repair
from adminview.repair.table_walk import Table, parallel_scan
from adminview.repair.view_diff import Change, Diff
from adminview.sync import apply
from adminview.sync.poller import Poller
from adminview.tables import ViewItem, read_items
from dynamo import ddb_json, item_codec
from dynamo.batch import batch_write, delete_request, put_request
from dynamo.client import client_of
from dynamo.instrumentation import recording
from returns import services
from shop import orders
from shop.errors import OrderConflict
from shop.orders import OrderLine
from tests import factories
from tests.adminview.figures_oracle import assert_figures_match
from tests.adminview.order_work import OrderDesk, assert_order_work_written
from tests.adminview.returns_traffic import ReturnsDesk, assert_both_streams_written, put_return
from tests.adminview_helpers import break_projection_of, put_view_item, sync_now, view_count, view_item

pytestmark = pytest.mark.ddb_local


def _place(count: int, prefix: str = "o") -> list[str]:
    ids = [f"{prefix}{n}" for n in range(count)]
    for n, order_id in enumerate(ids):
        lines = [OrderLine(f"200{1 + n % 3}", 1), OrderLine(f"200{1 + (n + 1) % 3}", 1)]
        orders.order_place(customer_id=f"100{1 + n % 3}", lines=lines, order_id=order_id)
    return ids


def _lose(*keys: tuple[str, str]) -> None:
    """View items lost (a record that never arrived): what a rebuild is for."""
    client = client_of(ViewItem)
    for pk, sk in keys:
        client.delete_item(TableName=str(ViewItem.Meta.table_name), Key={"PK": {"S": pk}, "SK": {"S": sk}})


def _unconditional_commit(view: Table, actions: list[dict[str, Any]], *, alone: bool = True) -> None:
    """What the rebuild did before: write its view items (plain actions, encoded here as ``Table.transact`` would)
    with no condition and leave watermarks alone."""
    requests = [
        put_request(item_codec.encode(a["Put"]["Item"]))
        if "Put" in a
        else delete_request(item_codec.encode(a["Delete"]["Key"]))
        for a in actions
        if "Put" in a or "Delete" in a
    ]
    batch_write(view.client, view.name, requests, key_names=("PK", "SK"))


def _stray_payment(order_id: str) -> None:
    """A payment entry naming the order that none of its invoices implies (a record that never arrived)."""
    key = schema.payment("tx-stray", order_id)
    item = {**ddb_json.key(*key), "Kind": ddb_json.s(schema.PAYMENT), "OrderId": ddb_json.s(order_id)}
    client_of(ViewItem).put_item(TableName=str(ViewItem.Meta.table_name), Item=item)


def _status(order_id: str) -> str | None:
    return ddb_json.string(view_item("o#" + order_id, "#order"), "Status")


def _wait_for(check: Callable[[], bool], timeout_s: float = 120.0) -> None:
    """Until ``check`` holds: the sync catches up within seconds on a busy machine; only a hang waits this long."""
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "the sync did not catch up"
        time.sleep(0.05)


class Following:
    """The poller following the stream in a thread, as ``sync_adminview --follow`` does."""

    def __init__(self) -> None:
        self.poller = Poller.for_sources(idle_s=0.05)
        self.thread = threading.Thread(target=self.poller.run, kwargs={"follow": True}, daemon=True)

    def __enter__(self) -> Following:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.poller.stop()
        self.thread.join(timeout=60)


class Staff:
    """Ships (and delivers some) or cancels (refunding what was paid) orders in a thread until every one is done,
    a step of returns work after each (``ReturnsDesk``: staff's returns of the delivered orders, another service's
    returns and refunds) and one of staff's work on orders of their own (``OrderDesk``: created, edited, partly
    shipped, paid, refunded)."""

    def __init__(self, order_ids: list[str], seed: int = 7) -> None:
        self.order_ids = order_ids
        self.rng = random.Random(seed)
        self.done = 0
        self.desk = ReturnsDesk("w", placed=[(o, orders.order_collection(o).order.customer_id) for o in order_ids])
        self.staff = OrderDesk("ws")
        self.thread = threading.Thread(target=self.work, daemon=True)

    def work(self) -> None:
        for order_id in self.order_ids:
            with contextlib.suppress(OrderConflict):  # nothing else acts on these orders: never expected
                if self.rng.random() < 0.6:
                    orders.order_ship(order_id=order_id)
                    if self.rng.random() < 0.5:
                        orders.order_deliver(order_id=order_id)
                        self.desk.delivered.append((order_id, orders.order_collection(order_id).items[0].product_id))
                else:
                    services.order_cancel_with_refund(order_id=order_id)
            self.desk.step()
            self.staff.step()
            self.done += 1
            time.sleep(0.01)


def _interfere_before_first_write(monkeypatch: pytest.MonkeyPatch, pk: str, change: Callable[[], None]) -> list[str]:
    """Run ``change`` once, after the rebuild read partition ``pk`` and before it writes it."""
    real = repair.commit_plans
    seen: list[str] = []

    def hooked(view: Table, plans: list[repair.Plan]) -> set[str]:
        if not seen and any(p.pk == pk for p in plans):
            seen.append(pk)
            change()
        return real(view, plans)

    monkeypatch.setattr(repair, "commit_plans", hooked)
    return seen


@pytest.fixture
def placed(shop_table: str, admin_view_table: str) -> Iterator[list[str]]:
    """24 pending orders, and a return another service wrote, applied to the view. (The returns stream is not
    empty when a follower starts: one started on an empty stream stops at its first record, see
    ``test_sync_basic``.)"""
    factories.shop_with(customers=3, products=3, stock_each=1000)
    ids = _place(24)
    put_return("w0", "w0", "1001", "REQUESTED", "2026-06-01T08:00:00", [("2001", 1)])
    sync_now()
    yield ids


@pytest.mark.parametrize("conditional", [True, False], ids=["conditional", "unconditional"])
def test_rebuild_during_live_traffic_converges_only_when_conditional(
    placed: list[str], conditional: bool, monkeypatch: pytest.MonkeyPatch, anchor_writes: str
) -> None:
    victim, busy = placed[1], [o for o in placed if o != placed[1]]
    # Lost records: the rebuild has work to do everywhere while staff act and the sync follows.
    _lose(*[("o#" + o, "#order") for o in placed[::3]], ("c#1002", "#profile"))
    forced: list[str] = []
    written: list[str | None] = []  # the victim's summary as each unconditional write put it, once staff acted
    if not conditional:

        def unconditional(view: Table, actions: list[dict[str, Any]], *, alone: bool = True) -> None:
            for action in actions:
                item = action.get("Put", {}).get("Item", {})
                if forced and (item.get("PK"), item.get("SK")) == ("o#" + victim, "#order"):
                    written.append(item.get("Status"))
            _unconditional_commit(view, actions, alone=alone)

        monkeypatch.setattr(repair, "commit", unconditional)

    def ship_victim_and_let_the_sync_apply_it() -> None:
        orders.order_ship(order_id=victim)
        _wait_for(lambda: view_count("o#" + victim) == 1)

    staff = Staff(busy)
    with Following():
        staff.thread.start()
        runs = [rebuild.rebuild(segments=2, page_size=7) for _ in range(3)]
        # The last run meets the race for sure: the victim's summary is lost, the rebuild reads it PENDING,
        # then staff ship it and the sync applies that, then the rebuild writes.
        _lose(("o#" + victim, "#order"))
        forced = _interfere_before_first_write(monkeypatch, "o#" + victim, ship_victim_and_let_the_sync_apply_it)
        runs.append(rebuild.rebuild(segments=2, page_size=7))
        staff.thread.join(timeout=120)
    sync_now()  # whatever arrived after the follower stopped

    assert forced == ["o#" + victim] and staff.done == len(busy)
    assert sum(r.missing for r in runs) >= 1 and not any(r.contended for r in runs)
    assert_both_streams_written()
    assert_order_work_written()
    found = rebuild.verify(settle_s=0)
    if conditional:
        assert found.clean, found.summary()
        assert _status(victim) == "SHIPPED"
        assert_figures_match()
    else:  # the rebuild wrote the PENDING it had read over the SHIPPED the sync had applied (whether a later pass
        # of the same rebuild meets the partition again and mends it depends on where its scan's pages fall)
        assert written[:1] == ["PENDING"]


@pytest.mark.parametrize("conditional", [True, False], ids=["conditional", "unconditional"])
def test_sync_applies_again_when_a_rebuild_wrote_between_its_view_write_and_its_watermark(
    placed: list[str], conditional: bool, monkeypatch: pytest.MonkeyPatch, anchor_writes: str
) -> None:
    victim = placed[0]
    _lose(("o#" + victim, "#order"))
    real_commit, real_advance = repair.commit_plans, apply._write_anchors
    rebuild_writes: list[Callable[[], object]] = []
    fired: list[str] = []
    after_race: list[ddb_json.Item] = []  # the order's anchor as the race left it

    def advance(writes: list[anchor.Writes], stored: dict[Any, Any]) -> set[Any]:
        while rebuild_writes:  # the rebuild's write lands after the sync's view write, before its anchor
            rebuild_writes.pop()()
        if conditional:
            return real_advance(writes, stored)
        client = client_of(ViewItem)
        for w in writes:
            if w.anchor is not None:
                client.put_item(TableName=str(ViewItem.Meta.table_name), Item=item_codec.encode(w.anchor))
        return set()

    def hooked(view: Table, plans: list[repair.Plan]) -> set[str]:
        if fired or all(p.pk != "o#" + victim for p in plans):
            return real_commit(view, plans)
        fired.append(victim)
        rebuild_writes.append(lambda: real_commit(view, plans))
        orders.order_ship(order_id=victim)  # after the rebuild read PENDING
        sync_now()
        after_race.append(view_item("o#" + victim, "#order"))
        return set()

    monkeypatch.setattr(apply, "_write_anchors", advance)
    monkeypatch.setattr(repair, "commit_plans", hooked)
    rebuild.rebuild(segments=1)
    monkeypatch.setattr(repair, "commit_plans", real_commit)
    sync_now()
    assert fired and not rebuild_writes

    (raced,) = after_race
    lines = raced.get("Lines")
    if conditional:  # the sync applied its record again over the rebuild's repair: the lines are there
        assert ddb_json.string(raced, "Status") == "SHIPPED" and lines
        assert _status(victim) == "SHIPPED"
        assert rebuild.verify(settle_s=0).clean
    else:  # the sync's anchor, folded from the lost one, overwrote the rebuild's repair: the order's lines are lost
        assert (
            ddb_json.string(raced, "Status") == "SHIPPED" and not lines
        )  # (the rebuild's second pass finds this and repairs it)


def test_verify_rechecks_before_reporting(placed: list[str]) -> None:
    orders.order_ship(order_id=placed[0])  # in the shop table, not yet in the view
    alarm = rebuild.verify(settle_s=0)  # without a recheck: a false alarm (the summary, and what the order counted)
    assert alarm.differing == 2 and {pk for pk, _sk in alarm.examples["differing"]} == {"o#" + placed[0]}

    pauses: list[float] = []

    def sleep(seconds: float) -> None:  # the sync catches up while verify waits
        pauses.append(seconds)
        sync_now()

    found = rebuild.verify(settle_s=2, sleep=sleep)
    assert found.clean, found.summary()
    assert pauses and sum(pauses) <= 2


def test_verify_during_a_live_sync_reports_no_false_differences(placed: list[str]) -> None:
    staff = Staff(placed)
    with Following():
        staff.thread.start()
        results = [rebuild.verify(segments=2, settle_s=20) for _ in range(2)]
        staff.thread.join(timeout=120)
    assert all(r.clean for r in results), [r.summary() for r in results]
    sync_now()
    assert rebuild.verify(settle_s=0).clean
    assert_both_streams_written()
    assert_order_work_written()
    assert_figures_match()


def test_verify_still_reports_real_differences_after_the_recheck(placed: list[str]) -> None:
    _lose(("o#" + placed[0], "#order"))
    put_view_item("c#ghost", "#profile", schema.PROFILE, Name="nobody")
    found = rebuild.verify(settle_s=0.3)
    assert (found.missing, found.extra, found.differing) == (1, 1, 0)
    assert found.examples["missing"] == [("o#" + placed[0], "#order")]


def test_verify_counts_a_partition_both_walks_flag_once(placed: list[str]) -> None:
    pk = "o#" + placed[0]
    _lose((pk, "#order"))
    _stray_payment(placed[0])  # no invoice of the order carries it
    found = rebuild.verify(settle_s=0)
    assert (found.missing, found.extra, found.differing) == (1, 1, 0), found.summary()
    fixed = rebuild.rebuild()
    assert (fixed.missing, fixed.extra, fixed.written) == (1, 1, 2)
    assert rebuild.verify(settle_s=0).clean


def test_an_activity_entry_with_no_audit_entry_behind_it_is_found_and_removed(placed: list[str]) -> None:
    # given an activity entry naming an order's audit entry that was never written
    position = "2026-01-01T00:00:00.000000#ghost"
    pk, sk = schema.activity_entries("o#" + placed[0], position, "ghost", "order", 0)[0]
    put_view_item(pk, sk, schema.ACTIVITY, Source="o#" + placed[0], User="ghost", Action="ship")
    # when verify walks the view, then it names it; a rebuild deletes it
    found = rebuild.verify(settle_s=0)
    assert (found.missing, found.extra, found.differing) == (0, 1, 0), found.summary()
    assert found.examples["extra"] == [(pk, sk)]
    fixed = rebuild.rebuild()
    assert (fixed.extra, fixed.written) == (1, 1)
    with pytest.raises(LookupError):
        view_item(pk, sk)
    assert rebuild.verify(settle_s=0).clean


def test_a_partition_the_view_cannot_be_made_from_is_reported_not_fatal(
    placed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # given an order whose items the shop source cannot read (a bug, as a poison record is)
    break_projection_of(monkeypatch, "o#" + placed[0])
    # when verify and rebuild walk the tables, then both finish, name it and leave the rest checked
    found = rebuild.verify(settle_s=0)
    assert not found.clean and (found.missing, found.extra, found.differing) == (0, 0, 0)
    assert list(found.unprojectable) == ["o#" + placed[0]] and "simulated bug" in found.summary()
    fixed = rebuild.rebuild()
    assert list(fixed.unprojectable) == ["o#" + placed[0]] and fixed.written == 0


def test_diff_keeps_counts_and_only_a_few_examples() -> None:
    diff = Diff(max_examples=2)
    diff.add([Change("extra", (f"o#{n}", "#order"), None, {}) for n in range(50)])
    assert diff.extra == 50 and len(diff.examples["extra"]) == 2


def test_rebuild_touches_watermarks_without_setting_seq(placed: list[str]) -> None:
    victim = placed[0]
    key = schema.order_anchor(victim)
    before = anchor.Bookkeeping.read(read_items([key])[key])
    assert before.seqs.get("c#1001") is not None and before.rev == 1
    entry = schema.customer_order("1001", ddb_json.string(view_item(*key), "Date"), victim)
    _lose(entry)  # an entry of the order: its anchor (the summary) stays and guards the repair
    found = rebuild.rebuild()
    assert (found.missing, found.written) == (1, 1)
    after = anchor.Bookkeeping.read(read_items([key])[key])
    assert (after.seqs["c#1001"], after.rev) == (before.seqs["c#1001"], 2)
    orders.order_cancel(order_id=victim)
    sync_now()  # a later record still applies after the rebuild
    assert _status(victim) == "CANCELLED"
    assert rebuild.verify(settle_s=0).clean


def test_parallel_scan_still_lists_every_item(placed: list[str]) -> None:
    assert len(parallel_scan(ViewItem, segments=3)) == len(parallel_scan(ViewItem, segments=1)) > len(placed)


def _empty_view() -> None:
    """Every view item gone, anchors and sums included: the rebuild has to write the whole view again."""
    view = parallel_scan(ViewItem)
    requests = [delete_request({"PK": {"S": i["PK"]}, "SK": {"S": i["SK"]}}) for i in view]
    batch_write(client_of(ViewItem), str(ViewItem.Meta.table_name), requests, key_names=("PK", "SK"))


def test_a_rebuild_into_an_empty_view_reads_no_source_partition_again(placed: list[str]) -> None:
    # given a view with nothing in it
    _empty_view()
    # when a rebuild writes it again
    with recording() as log:
        found = rebuild.rebuild(segments=2, page_size=7)
    # then it wrote every partition from what its Scan read, with no read of the view (it held nothing, so there
    # was nothing to compare with or to walk afterwards) and no Query
    assert found.written > len(placed) and not found.contended and found.view_was_empty
    assert found.view_items == 0
    assert not [c for c in log.calls if c.operation in ("Query", "BatchGetItem")]
    assert rebuild.verify(settle_s=0).clean
    assert_figures_match()


def test_a_rebuild_into_an_empty_view_that_the_sync_beats_to_an_anchor_writes_that_partition_again(
    placed: list[str], monkeypatch: pytest.MonkeyPatch, anchor_writes: str
) -> None:
    # given an empty view, and a sync that applies a shipment after the rebuild scanned the order PENDING
    victim = placed[1]
    _empty_view()

    def ship_victim_and_sync() -> None:
        orders.order_ship(order_id=victim)
        sync_now()

    forced = _interfere_before_first_write(monkeypatch, "o#" + victim, ship_victim_and_sync)
    # when the rebuild writes the order's entries, then its anchor on the condition it is still absent
    found = rebuild.rebuild(segments=2, page_size=7)
    # then the condition fails, the order is read again whole and written as the shop has it
    assert forced == ["o#" + victim] and not found.contended
    assert _status(victim) == "SHIPPED"
    assert rebuild.verify(settle_s=0).clean
    assert_figures_match()


def test_a_rebuild_into_an_empty_view_whose_entries_land_after_the_syncs_leaves_the_order_as_the_shop_has_it(
    placed: list[str], monkeypatch: pytest.MonkeyPatch, anchor_writes: str
) -> None:
    # given an empty view, and a sync that ships an order after the rebuild scanned it PENDING and before the
    # rebuild writes its entries (so the rebuild's PENDING entries land after the sync's SHIPPED ones)
    victim = placed[2]
    _empty_view()
    real = repair.commit_unanchored
    shipped: list[str] = []

    def commit_unanchored(view: Table, plans: list[repair.Plan]) -> set[str]:
        if not shipped and any(p.pk == "o#" + victim for p in plans):
            shipped.append(victim)
            orders.order_ship(order_id=victim)
            sync_now()
        return real(view, plans)

    monkeypatch.setattr(repair, "commit_unanchored", commit_unanchored)
    # when the rebuild writes them, then its anchor on the condition that it is still absent
    found = rebuild.rebuild(segments=2, page_size=7)
    # then the condition fails, and the partition is repaired with the entries the rebuild wrote read beside it
    # (an entry the shop's order no longer implies would go): the order is as the shop has it
    assert shipped == [victim] and not found.contended
    assert _status(victim) == "SHIPPED"
    assert rebuild.verify(settle_s=0).clean
    assert_figures_match()


def test_a_rebuild_into_an_empty_view_holding_more_sums_than_it_keeps_writes_them_as_it_goes(
    placed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # given an empty view, and a rebuild that keeps no more than three sum items before writing what it added
    _empty_view()
    monkeypatch.setattr(repair, "HELD_SUMS", 3)
    written: list[int] = []
    real = repair.LaterSums._write

    def write(later: repair.LaterSums, held: dict[schema.Key, Any]) -> None:
        written.append(len(held))
        real(later, held)

    monkeypatch.setattr(repair.LaterSums, "_write", write)
    found = rebuild.rebuild(segments=2, page_size=7)
    # then it wrote them during its source pass as well as after it, and every sum is what the orders counted
    assert found.view_was_empty and not found.contended
    assert len([n for n in written if n]) > 2
    assert rebuild.verify(settle_s=0).clean
    assert_figures_match()


def test_a_rebuild_into_an_empty_view_stopped_before_its_sums_leaves_them_for_the_next_rebuild(
    placed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # given an empty view, and a rebuild stopped after its source pass, before it adds what it counted to the sums
    _empty_view()

    def stopped(_later: repair.LaterSums, _walk: object) -> None:
        raise RuntimeError("stopped")

    with monkeypatch.context() as patched, pytest.raises(RuntimeError, match="stopped"):
        patched.setattr(repair.LaterSums, "commit", stopped)
        rebuild.rebuild(segments=2, page_size=7)
    # then the orders and their counted items are there and only the sums differ, which a verify reports
    assert _status(placed[0]) == "PENDING"
    short = rebuild.verify(settle_s=0)
    assert short.differing and not short.missing and not short.extra
    # and the next rebuild, into a view no longer empty, makes each sum the total of what the orders counted
    found = rebuild.rebuild(segments=2, page_size=7)
    assert not found.view_was_empty and found.differing == short.differing
    assert rebuild.verify(settle_s=0).clean
    assert_figures_match()
