"""The rebuild's writes: a partition's view items made equal to what its shop items imply, in conditional
transactions that also write the partition's anchor.

Reads come in the order that makes this safe next to the live sync (see ``adminview.watermarks``): the anchor
first, then the shop partition, then the view. The anchor is written with the facts the shop implies, the
sequence numbers it had (a rebuild does not know which stream record its read corresponds to, so later records
still apply) and ``Rev`` + 1, on the condition that ``Rev`` is still what was read; the view items that follow
from it go in the same transaction. If the condition fails, the sync applied a record meanwhile: the partition
is read again. Staff activity items need no anchor (their audit entries never change).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from adminview import anchors, figures, watermarks
from adminview.models import ORDER_SK
from adminview.projection import Image, ViewKey
from adminview.table_walk import Table
from adminview.view_diff import Change, compare
from adminview.walk import CounterDifference, Flagged, Walk, anchor_of
from dynamo import ddb_json
from dynamo.backoff import full_jitter
from shop import keys

ATTEMPTS = 10  # reads and writes of one partition the sync keeps beating, before reporting it contended
MAX_TRANSACTION = 100  # TransactWriteItems' limit on actions


class Contended(Exception):
    """An anchor changed between the read and the write: the sync applied a record meanwhile."""


@dataclass
class Plan:
    """One partition's repair: its changes, the anchor write that guards them, and what the anchor's new
    contribution adds to the counters (``adminview.figures``), which goes in the anchor's transaction."""

    pk: str
    changes: list[Change]
    actions: list[dict[str, Any]]
    deltas: figures.Deltas = field(default_factory=dict)
    head: int = 1  # the leading actions (the anchor, and an order's #counted item) that go with the counters


def plan(
    view: Table, pk: str, shop_items: list[Image], view_items: Iterable[Image], stored_anchor: Image | None, shards: int
) -> Plan:
    """What makes the partition's view items equal to what ``shop_items`` imply; ``stored_anchor`` is the anchor
    as read before the shop was (``view_items`` include the order's ``#counted`` item, if any)."""
    view_items = list(view_items)
    changes = compare(anchors.implied_view(shop_items, shards), anchors.comparable(view_items))
    actions: list[dict[str, Any]] = []
    key = anchor_of(pk)
    if key is None:
        return Plan(pk, changes, [_action(view, c.key, c.expected) for c in changes])
    stored = anchors.read(key, stored_anchor)
    order_id = keys.without_prefix(pk, keys.ORDER) or ""
    counted = figures.counted(order_id, next((i for i in view_items if figures.is_counted(i)), None))
    contribution = anchors.from_shop(key, shop_items).contribution()
    deltas = figures.difference(counted, contribution, figures.stats_shards()) if key[1] == ORDER_SK else {}
    if deltas and not changes:  # the items are right, but the order is not (all) counted
        changes = [Change("differing", figures.counted_key(pk), None, None)]
    if not changes:
        return Plan(pk, changes, [])
    target = anchors.from_shop(key, shop_items)
    target.seqs, target.rev, target.stored, target.applied_at = (
        stored.seqs,
        stored.rev,
        stored.stored,
        stored.applied_at,
    )
    anchor: Image | None = target.items(shards)[key]
    if not target.present() and not target.seqs:
        anchor = None  # nothing to describe and nothing to guard: no stub
    mark = watermarks.Mark.of(stored_anchor)
    expression, names, values = watermarks.unchanged(mark)
    if anchor is not None:
        write: dict[str, Any] = {"TableName": view.name, "Item": watermarks.with_expiry(anchor)}
    else:
        write = {"TableName": view.name, "Key": ddb_json.key(*key)}
    write |= {"ConditionExpression": expression, "ExpressionAttributeNames": names}
    if values:
        write["ExpressionAttributeValues"] = values
    actions.append({"Put": write} if anchor is not None else {"Delete": write})
    if deltas:
        actions.append({"Put": {"TableName": view.name, "Item": figures.counted_item(pk, contribution)}})
    head = len(actions)
    actions += [_action(view, c.key, c.expected) for c in changes if c.key not in (key, figures.counted_key(pk))]
    return Plan(pk, changes, actions, deltas, head)


def _action(view: Table, key: ViewKey, item: Image | None) -> dict[str, Any]:
    if item is not None:
        return {"Put": {"TableName": view.name, "Item": item}}
    return {"Delete": {"TableName": view.name, "Key": ddb_json.key(*key)}}


def transaction_actions(table: str, plans: list[Plan]) -> list[dict[str, Any]]:
    """The writes that commit these plans, in commit order: each plan's conditioned anchor write (and an order's
    ``#counted`` item), then the counters' differences, merged (``adminview.figures``), then the view items they
    guard. The one way a rebuild and a one-order repair (``adminview.consistency``) turn plans into a
    transaction, so both write the same things."""
    counters = figures.merge(p.deltas for p in plans)
    actions = [a for p in plans for a in p.actions[: p.head]]
    actions += [figures.counter_update(table, key, values) for key, values in counters.items()]
    return actions + [a for p in plans for a in p.actions[p.head :]]


def _commit(view: Table, actions: list[dict[str, Any]]) -> None:
    """One conditional transaction (tests replace this to show what an unconditional write would do)."""
    try:
        view.transact(actions)
    except view.client.exceptions.TransactionCanceledException as exc:
        reasons = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]
        if any(code in ("ConditionalCheckFailed", "TransactionConflict") for code in reasons):
            raise Contended(str(reasons)) from exc
        raise


def _commit_plans(view: Table, plans: list[Plan]) -> set[str]:
    """Pack the plans into as few transactions as fit; returns the partitions whose transaction failed its
    conditions (the sync got there first), which the caller reads again. A plan larger than one transaction
    (an order with very many audit entries) goes alone, its anchor first; later parts carry no condition, which
    is safe because only activity items (never changed by the sync) come after the collection's items."""
    failed: set[str] = set()
    pending: list[Plan] = []

    def flush() -> None:
        actions = transaction_actions(view.name, pending)
        for start in range(0, len(actions), MAX_TRANSACTION):
            try:
                _commit(view, actions[start : start + MAX_TRANSACTION])
            except Contended:
                failed.update(p.pk for p in pending)
                break
        pending.clear()

    def size(group: list[Plan]) -> int:
        return sum(len(q.actions) for q in group) + len(figures.merge(q.deltas for q in group))

    for p in plans:
        if pending and size([*pending, p]) > MAX_TRANSACTION:
            flush()
        pending.append(p)
    flush()
    return failed


def repair_batch(walk: Walk, parts: list[Flagged]) -> None:
    """Repair partitions the shop pass found differing, several at a time: their anchors are read (BatchGetItem)
    before their shop items. A partition whose anchor exists is read again whole, since the Scan's items may
    be older than what the sync applied; one without an anchor has had nothing applied, so the Scan's items
    are as new as anything the view holds (and an anchor created meanwhile fails the write's condition).
    Partitions whose write failed its condition go through ``repair_partition`` one by one; extra items under
    other keys are the view pass's to find."""
    keys_ = {pk: anchor_of(pk) for pk, _items in parts}
    stored = watermarks.read_anchors(walk.view.client, walk.view.name, [k for k in keys_.values() if k])
    shop_now = {
        pk: items if stored.get(keys_[pk] or ("", "")) is None else walk.shop.partition(pk) for pk, items in parts
    }
    wanted = {
        pk: [
            *anchors.implied_view(items, walk.shards),
            *_described(keys_[pk], stored.get(keys_[pk] or ("", "")), walk.shards),
            figures.counted_key(pk),
        ]
        for pk, items in shop_now.items()
    }
    view_now = walk.view.get_many(sorted({k for found in wanted.values() for k in found}))
    plans = [
        plan(
            walk.view,
            pk,
            shop_now[pk],
            [view_now[k] for k in dict.fromkeys(wanted[pk]) if k in view_now],
            stored.get(keys_[pk] or ("", "")),
            walk.shards,
        )
        for pk, _items in parts
    ]
    plans = [p for p in plans if p.changes]
    again = _commit_plans(walk.view, plans)
    for p in plans:
        if p.pk not in again:
            _count(walk, p.changes)
    for pk in sorted(again):
        repair_partition(walk, pk)


def _described(key: ViewKey | None, stored: Image | None, shards: int) -> list[ViewKey]:
    """The view keys an anchor says exist (so stale ones are seen and removed)."""
    if key is None or stored is None:
        return []
    return list(anchors.read(key, stored).items(shards))


def repair_counters(walk: Walk, differences: list[CounterDifference]) -> None:
    """Make each counter the sum of what the anchors counted, on the condition it did not change since the walk
    read it (a counter the sync changed meanwhile is left for the next rebuild)."""
    fixed: list[Change] = []
    for difference in differences:
        key = ddb_json.key(*difference.key)
        if difference.changed_at is None:
            condition, values = "attribute_not_exists(#at)", {}
        else:
            condition, values = "#at = :seen", {":seen": ddb_json.n(difference.changed_at)}
        if difference.expected:
            item = {**key, **{n: ddb_json.n(v) for n, v in difference.expected.items()}}
            item[figures.CHANGED_AT] = ddb_json.n(round(time.time(), 3))
            action: dict[str, Any] = {"Put": {"TableName": walk.view.name, "Item": item}}
        else:
            action = {"Delete": {"TableName": walk.view.name, "Key": key}}
        body = next(iter(action.values()))
        body |= {"ConditionExpression": condition, "ExpressionAttributeNames": {"#at": figures.CHANGED_AT}}
        if values:
            body["ExpressionAttributeValues"] = values
        try:
            _commit(walk.view, [action])
        except Contended:
            walk.diff.count(live_counters=1)
            continue
        fixed.append(Change("differing", difference.key, None, None))
    _count(walk, fixed)


def _count(walk: Walk, changes: list[Change]) -> None:
    walk.diff.add(changes)
    walk.diff.count(written=len(changes))
    walk.on_write(len(changes))


def repair_partition(walk: Walk, pk: str) -> None:
    key = anchor_of(pk)
    for attempt in range(ATTEMPTS):
        stored = watermarks.read_anchors(walk.view.client, walk.view.name, [key])[key] if key else None
        found = plan(walk.view, pk, walk.shop.partition(pk), walk.view.partition(pk), stored, walk.shards)
        if not found.changes:
            return
        if _commit_plans(walk.view, [found]):
            time.sleep(full_jitter(attempt, base=0.05, cap=2.0))
            continue
        _count(walk, found.changes)
        return
    walk.diff.count(contended=1)
