"""Repairing a source partition's view items (rebuild, and one order's repair from the consistency page), in
conditional transactions that also write the partition's anchors: the rebuild's half of ``adminview.core.anchor``'s
protocol. Reads come anchors first, then the source partition, then the view items both imply, and every anchor
and counted item is written on the condition it is still as read, so a repair never writes a state older than what
the sync has applied (``docs/repair.md``, "Why a rebuild never brings back old state").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from adminview.core import anchor, numbers, schema, values
from adminview.core.sources import Source
from adminview.repair import partition
from adminview.repair.flags import CounterDifference, Flag
from adminview.repair.partition import Item
from adminview.repair.table_walk import Table
from adminview.repair.view_diff import Change, compare
from adminview.repair.walk import Walk
from adminview.tables import write_entries
from dynamo import backoff, transactions
from dynamo.batch import chunks

HELD_SUMS = 10_000  # sum items a rebuild into an empty view holds before it writes what it added to them


class Contended(Exception):
    """An anchor or counted item changed between the read and the write: the sync applied a record meanwhile."""


@dataclass
class Plan:
    """One source partition's repair: its changes, the guarded writes that go first, the sums, the entries."""

    pk: str
    changes: list[Change]
    guarded: list[dict[str, Any]] = field(default_factory=list)
    deltas: numbers.Deltas = field(default_factory=dict)
    entries: dict[schema.Key, Item | None] = field(default_factory=dict)  # None: deleted


@dataclass(frozen=True)
class Reading:
    """One source partition as read for a repair, in the protocol's order."""

    source: Source
    pk: str
    anchors: dict[schema.Key, Item | None]  # read first
    source_items: list[Item]
    stored: dict[schema.Key, Item]  # every view item either side implies, read last (the anchors as read first)
    anchors_after: dict[schema.Key, Item | None]  # the anchors read again with them: moved meanwhile?


@dataclass(frozen=True)
class Wanted:
    """A source partition to read: its table, its source, its key, and view items to read beside those implied."""

    table: Table
    source: Source
    pk: str
    extras: tuple[schema.Key, ...] = ()


def read_partitions(view: Table, wanted: Sequence[Wanted]) -> list[Reading]:
    """Several source partitions read together in the protocol's order (anchors and counted items, each partition,
    then every view item they imply with the anchors again), so each partition beyond the first costs one Query."""
    shards = schema.list_shards()
    anchor_keys = [w.source.anchors_in(w.pk) for w in wanted]
    counted = [
        [schema.counted(key) for key in keys if w.source.counts(key)]
        for w, keys in zip(wanted, anchor_keys, strict=True)
    ]
    first = view.get_many([key for keys, more in zip(anchor_keys, counted, strict=True) for key in (*keys, *more)])
    items = [w.table.partition(w.pk) for w in wanted]
    needs: list[set[schema.Key]] = []
    for w, keys, found in zip(wanted, anchor_keys, items, strict=True):
        implied = partition.implied_by(w.source, w.pk, found, shards)
        described: set[schema.Key] = set()
        for key in keys:
            if (held := first.get(key)) is not None:
                described |= set(w.source.read_state(key, held).implied(shards).entries)
        needs.append((set(implied.items()) | described | set(w.extras)) - set(first))
    every_anchor = {key for keys in anchor_keys for key in keys}
    last = view.get_many(sorted(set().union(*needs) | every_anchor))
    readings = []
    for w, keys, more, found, need in zip(wanted, anchor_keys, counted, items, needs, strict=True):
        stored = {key: first[key] for key in (*keys, *more) if key in first}
        stored |= {key: last[key] for key in need if key in last and key not in keys}
        anchors = {key: first.get(key) for key in keys}
        readings.append(Reading(w.source, w.pk, anchors, found, stored, {key: last.get(key) for key in keys}))
    return readings


def plan_repair(reading: Reading, table_name: str, shards: int) -> Plan:
    """What makes the partition's view items equal to what its source items imply: each anchor planned as the sync
    plans it (``anchor.plan``) from what the view holds for it, its counted item moved as the sync's is; the entries
    are those that differ from what the view holds, whoever wrote them."""
    source, stored = reading.source, reading.stored
    implied = partition.implied_by(source, reading.pk, reading.source_items, shards)
    changes = compare(implied.items(), partition.compared(stored))
    found = Plan(reading.pk, list(changes))
    anchors: list[anchor.Writes] = []
    moves: list[numbers.Move] = []
    for key, held in reading.anchors.items():
        empty = source.read_state(key, None)
        counted = numbers.read_counted(schema.counted(key), stored.get(schema.counted(key)))
        facts = (
            anchor.without_bookkeeping(held) if held is not None and not partition.is_bookkeeping_only(held) else None
        )
        before = anchor.Implied(key, facts, sums=counted.sums if source.counts(key) else None)
        after = implied.anchors.get(key) or empty.implied(shards)
        writes = anchor.plan(before, after, anchor.Bookkeeping.read(held), empty.stub_kind, keep=True)
        anchors.append(writes)
        if source.counts(key) and (move := numbers.move(counted, writes.sums)) is not None:
            moves.append(move)
            held_counted = stored.get(counted.key)
            found.changes.append(Change("differing" if held_counted else "missing", counted.key, None, held_counted))
    if not found.changes:
        return found
    for writes in anchors:
        action = writes.anchor_action(table_name)
        assert action is not None  # kept: a repair always writes the anchor, its guard
        found.guarded.append(action)
    found.guarded += [numbers.counted_write(table_name, *move) for move in moves]
    numbers.add_into(found.deltas, (numbers.difference(before.sums, after) for before, after in moves))
    found.entries = {change.key: change.expected for change in changes if change.key not in reading.anchors}
    return found


def _entry_action(table: str, key: schema.Key, item: Item | None) -> dict[str, Any]:
    if item is not None:
        return {"Put": {"TableName": table, "Item": item}}
    return {"Delete": {"TableName": table, "Key": values.key(*key)}}


def transaction_actions(table: str, plans: Sequence[Plan]) -> list[dict[str, Any]]:
    """The writes that commit these plans, in commit order: each plan's guarded writes, then the sums' merged
    differences, then the entries. The one way a rebuild and a one-order repair turn plans into a transaction."""
    sums = numbers.sum_updates(table, (p.deltas for p in plans))
    entries = [_entry_action(table, key, item) for p in plans for key, item in p.entries.items()]
    return [a for p in plans for a in p.guarded] + sums + entries


def commit(view: Table, actions: list[dict[str, Any]], *, alone: bool = True) -> None:
    """One conditional transaction (tests replace this to show what an unconditional write would do); ``alone``
    as ``Table.transact`` takes it."""
    try:
        view.transact(actions, alone=alone)
    except transactions.TransactionCancelled as exc:
        if exc.lost_race:
            raise Contended(str(exc)) from exc
        raise


def commit_plans(view: Table, plans: list[Plan]) -> set[str]:
    """Pack the plans into as few transactions as fit; returns the partitions whose transaction failed its
    conditions (the sync got there first). A plan larger than one transaction goes alone, its guarded writes and
    sums first; later parts carry no condition, which is safe because only entries come after them."""
    failed: set[str] = set()
    writes = [len(p.guarded) + len(p.entries) for p in plans]
    for part in numbers.pack(writes, [p.deltas.keys() for p in plans], transactions.MAX_ITEMS):
        group = [plans[i] for i in part]
        actions = transaction_actions(view.name, group)
        adds = any(p.deltas for p in group)
        for start in range(0, len(actions), transactions.MAX_ITEMS):
            try:
                commit(view, actions[start : start + transactions.MAX_ITEMS], alone=adds)
            except Contended:
                failed.update(p.pk for p in group)
                break
    return failed


def commit_unanchored(view: Table, plans: list[Plan]) -> set[str]:
    """Plans of partitions that had no anchor: their entries written first, in bulk, then their anchors, counted
    items and sums packed into transactions, as the sync writes entries before its anchor. An anchor the sync wrote
    meanwhile fails its condition: the caller repairs that partition again through the whole protocol."""
    view.write_many({key: item for p in plans for key, item in p.entries.items()})
    return commit_plans(view, [replace(p, entries={}) for p in plans])


def settle(view: Table, wanted: Sequence[Wanted]) -> None:
    """Repair partitions whose anchors the sync lost a race for: what it wrote before its anchor may have landed
    after the winner's newer writes, and folding its records again would find them applied and write nothing
    (``extras``: the entries the sync wrote, read beside what the partition implies). ``Contended`` when they keep
    changing."""
    shards = schema.list_shards()
    pending = list(wanted)
    for _ in backoff.REPAIRS.sends():
        plans = [found for r in read_partitions(view, pending) if (found := plan_repair(r, view.name, shards)).changes]
        again = commit_plans(view, plans) if plans else set()
        if not again:
            return
        pending = [w for w in pending if w.pk in again]
    raise Contended(f"partitions {sorted(w.pk for w in pending)[:3]} kept changing while the sync settled them")


def _count(walk: Walk, changes: list[Change]) -> None:
    walk.diff.add(changes)
    walk.diff.count(written=len(changes))
    walk.on_write(len(changes))


@dataclass
class LaterSums:
    """What a rebuild into an empty view adds to the sums, written after the source pass or once it holds
    ``HELD_SUMS`` sum items (``docs/repair.md``: why this is faster, and why the sums still end exact)."""

    view: Table
    deltas: numbers.Deltas = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, parts: Iterable[numbers.Deltas]) -> None:
        with self._lock:
            numbers.add_into(self.deltas, parts)
            if len(self.deltas) < HELD_SUMS:
                return
            held, self.deltas = self.deltas, {}
        self._write(held)

    def commit(self, _walk: Walk) -> None:
        with self._lock:
            held, self.deltas = self.deltas, {}
        self._write(held)

    def _write(self, held: numbers.Deltas) -> None:
        for actions in chunks(numbers.sum_updates(self.view.name, [held]), transactions.MAX_ITEMS):
            commit(self.view, list(actions))


def repair_flags(walk: Walk, flags: list[Flag], later: LaterSums | None = None) -> None:
    """Repair flagged partitions, several a transaction; those whose transaction failed its conditions go
    through ``repair_flag`` one by one. A partition the walk found with no anchor stored (``Flag.seen``) is planned
    from the Scan's items with no read, its anchors written on the condition they are still absent (in a view that
    held nothing, its sums go to ``later``); the others are read together (``read_partitions``)."""
    unanchored = [found for f in flags if f.seen is not None and (found := planned(walk, f)) and found.changes]
    plans = [found for found in _planned_together(walk, [f for f in flags if f.seen is None]) if found.changes]
    deferred: dict[str, numbers.Deltas] = {}
    if later is not None and walk.diff.view_was_empty:
        deferred = {p.pk: p.deltas for p in unanchored}
        unanchored = [replace(p, deltas={}) for p in unanchored]
    again = commit_unanchored(walk.view, unanchored) | commit_plans(walk.view, plans)
    if later is not None:
        later.add(deltas for pk, deltas in deferred.items() if pk not in again)
    written = {p.pk: p for p in unanchored}
    plans += unanchored
    for p in plans:
        if p.pk not in again:
            _count(walk, p.changes)
    for flag in flags:
        if flag.pk in again:  # the entries written without their anchor are read again, and go if not implied
            entries = written[flag.pk].entries if flag.pk in written else {}
            repair_flag(walk, replace(flag, extras=flag.extras | set(entries), seen=None))


def _wanted(walk: Walk, flag: Flag) -> Wanted:
    return Wanted(walk.table(flag.source), flag.source, flag.pk, tuple(flag.extras))


def planned(walk: Walk, flag: Flag) -> Plan | None:
    """The flagged partition planned, from ``Flag.seen`` or read; None, noted, when it cannot be projected."""
    try:
        if flag.seen is None:
            (reading,) = read_partitions(walk.view, [_wanted(walk, flag)])
        else:
            absent: dict[schema.Key, Item | None] = dict.fromkeys(flag.source.anchors_in(flag.pk))
            reading = Reading(flag.source, flag.pk, absent, list(flag.seen.items), dict(flag.seen.stored), absent)
        return plan_repair(reading, walk.view.name, walk.shards)
    except ValueError as exc:
        walk.diff.cannot_project(flag.pk, str(exc))
        return None


def _planned_together(walk: Walk, flags: list[Flag]) -> list[Plan]:
    """Flagged partitions read together (one read of their anchors, a Query each, one read of their view items)
    and planned; one by one when a partition cannot be projected, so that it is noted and the rest go on."""
    if not flags:
        return []
    try:
        readings = read_partitions(walk.view, [_wanted(walk, f) for f in flags])
        return [plan_repair(reading, walk.view.name, walk.shards) for reading in readings]
    except ValueError:
        return [found for f in flags if (found := planned(walk, f)) is not None]


def repair_flag(walk: Walk, flag: Flag) -> None:
    for _ in backoff.REPAIRS.sends():
        found = planned(walk, flag)
        if found is None or not found.changes:
            return
        if commit_plans(walk.view, [found]):
            continue
        _count(walk, found.changes)
        return
    walk.diff.count(contended=1)


def delete_orphans(walk: Walk, orphans: list[schema.Key]) -> None:
    """Items no source implies and the view no longer writes (kinds of earlier versions): deleted."""
    write_entries(dict.fromkeys(orphans))
    _count(walk, [Change("extra", key, None, None) for key in orphans])


def repair_counters(walk: Walk, differences: list[CounterDifference]) -> None:
    """Make each sum the total of what the anchors counted, on the condition it did not change since the walk
    read it (a sum the sync changed meanwhile is left for the next rebuild)."""
    fixed: list[Change] = []
    for difference in differences:
        if difference.changed_at is None:
            condition, seen = "attribute_not_exists(#at)", {}
        else:
            condition, seen = "#at = :seen", {"ExpressionAttributeValues": {":seen": difference.changed_at}}
        stamped = {schema.CHANGED_AT: round(time.time(), 3)}
        item = {**values.key(*difference.key), **difference.expected, **stamped} if difference.expected else None
        action = _entry_action(walk.view.name, difference.key, item)
        body = next(iter(action.values()))
        body |= {"ConditionExpression": condition, "ExpressionAttributeNames": {"#at": schema.CHANGED_AT}, **seen}
        try:
            commit(walk.view, [action])
        except Contended:
            walk.diff.count(live_counters=1)
            continue
        fixed.append(Change("differing", difference.key, None, None))
    _count(walk, fixed)
