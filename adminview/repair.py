"""The rebuild's writes: each source item's view items with its watermarks, in conditional transactions.

Why the conditions make a rebuild safe next to the live sync is told in ``adminview.rebuild`` and
``adminview.watermarks``; this module only reads in the required order (watermarks, then the shop, then
the view) and writes.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from adminview import projection, watermarks
from adminview.models import ORDER_SK
from adminview.projection import Image, ViewKey
from adminview.table_walk import Table
from adminview.view_diff import Change, compare
from dynamo import ddb_json
from dynamo.backoff import full_jitter

if TYPE_CHECKING:
    from adminview.rebuild import Walk

ATTEMPTS = 10  # reads and writes of one partition the sync keeps beating, before reporting it contended
MAX_TRANSACTION = 100  # TransactWriteItems' limit on actions


class Contended(Exception):
    """A watermark changed between the read and the write: the sync applied a record meanwhile."""


def _order_source(pk: str, expected: dict[ViewKey, Image], actual: dict[ViewKey, Image]) -> ViewKey | None:
    """The order whose status a buyer relation's index membership depends on."""
    for found in (expected, actual):
        summary = found.get((pk, ORDER_SK))
        if summary is not None:
            return projection.source_of(summary)
    return None


def _groups(
    pk: str, changes: list[Change], expected: dict[ViewKey, Image], actual: dict[ViewKey, Image]
) -> list[tuple[list[Change], set[ViewKey]]]:
    """Changes grouped by source item, each with the watermarks it must be conditioned on."""
    order = _order_source(pk, expected, actual)
    groups: dict[ViewKey | None, tuple[list[Change], set[ViewKey]]] = {}
    for change in changes:
        item = change.expected or change.actual or {}
        source = projection.source_of(item)
        found = groups.setdefault(source, ([], set()))
        found[0].append(change)
        if source is not None:
            found[1].add(source)
        if item.get("Kind", {}).get("S") == "buyer":
            customer = item.get("CustomerId", {}).get("S")
            dependency = order or ((pk, "c#" + customer) if customer else None)
            if dependency is not None:
                found[1].add(dependency)
    return list(groups.values())


def _actions(
    view: Table, changes: list[Change], marks: dict[ViewKey, watermarks.Mark], sources: set[ViewKey]
) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = [
        {"Put": {"TableName": view.name, "Item": c.expected}}
        if c.expected is not None
        else {"Delete": {"TableName": view.name, "Key": {"PK": {"S": c.key[0]}, "SK": {"S": c.key[1]}}}}
        for c in changes
    ]
    actions += [watermarks.touch(view.name, s, marks.get(s, watermarks.Mark())) for s in sorted(sources)]
    return actions


def _commit(view: Table, actions: list[dict[str, Any]]) -> None:
    """One conditional transaction (tests replace this to show what an unconditional write would do)."""
    try:
        view.transact(actions)
    except view.client.exceptions.TransactionCanceledException as exc:
        reasons = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]
        if any(code in ("ConditionalCheckFailed", "TransactionConflict") for code in reasons):
            raise Contended(str(reasons)) from exc
        raise


Entry = tuple[str, list[Change], set[ViewKey]]  # partition, one source item's changes, watermarks they need


def _commit_groups(view: Table, entries: list[Entry], marks: dict[ViewKey, watermarks.Mark]) -> set[str]:
    """Pack the entries into as few transactions as fit (a watermark appears once per transaction and is
    tracked across them: each transaction increments it). Returns the partitions whose transaction failed
    its conditions (the sync got there first), which the caller reads again."""
    failed: set[str] = set()
    pending: list[Entry] = []
    sources: set[ViewKey] = set()

    def flush() -> None:
        changes = [c for _pk, group, _needs in pending for c in group]
        if changes:
            try:
                _commit(view, _actions(view, changes, marks, sources))
            except Contended:
                failed.update(pk for pk, _group, _needs in pending)
            else:
                for source in sources:
                    old = marks.get(source, watermarks.Mark())
                    marks[source] = watermarks.Mark(True, old.seq, old.next_rev)
        pending.clear()
        sources.clear()

    for entry in entries:
        _pk, group, needs = entry
        if sum(len(g) for _p, g, _n in pending) + len(group) + len(sources | needs) > MAX_TRANSACTION:
            flush()
        pending.append(entry)
        sources.update(needs)
    flush()
    return failed


def _write_partition(
    view: Table,
    pk: str,
    changes: list[Change],
    expected: dict[ViewKey, Image],
    actual: dict[ViewKey, Image],
    marks: dict[ViewKey, watermarks.Mark],
) -> None:
    entries = [(pk, group, needs) for group, needs in _groups(pk, changes, expected, actual)]
    if _commit_groups(view, entries, marks):
        raise Contended(pk)


def repair_batch(walk: Walk, parts: list[tuple[str, list[Image]]]) -> None:
    """Repair partitions the shop walk found differing, several at a time: their watermarks, then their shop
    items, then their view items are read by key (BatchGetItem), and their changes share transactions.
    Partitions that need more (a watermark not read, a failed condition) go through ``repair_partition`` one by one;
    extra items under other keys are the view walk's to find."""
    plans: dict[str, tuple[list[ViewKey], list[ViewKey]]] = {}  # pk -> (source items, view keys seen)
    needs: set[ViewKey] = set()
    for pk, items in parts:
        sources = [k for i in items if (k := ddb_json.maybe_key(i)) and projection.project_item(i, walk.shards)]
        expected = walk.expected(items)
        plans[pk] = (sources, list(expected))
        needs.update(sources)
        for item in expected.values():  # the order a buyer relation depends on, should it appear
            if item["Kind"]["S"] == "buyer" and "CustomerId" in item:
                needs.add((pk, "c#" + item["CustomerId"]["S"]))
    marks = watermarks.read(walk.view.client, walk.view.name, sorted(needs))  # before the shop read
    shop_now = walk.shop.get_many(sorted({s for sources, _keys in plans.values() for s in sources}))
    expected_now = {
        pk: walk.expected([shop_now[s] for s in sources if s in shop_now]) for pk, (sources, _k) in plans.items()
    }
    view_now = walk.view.get_many(sorted({k for pk, (_s, keys) in plans.items() for k in [*keys, *expected_now[pk]]}))
    entries: list[Entry] = []
    found: dict[str, list[Change]] = {}
    again: set[str] = set()
    for pk, (_sources, keys) in plans.items():
        actual = {k: view_now[k] for k in {*keys, *expected_now[pk]} if k in view_now}
        changes = compare(expected_now[pk], actual)
        groups = _groups(pk, changes, expected_now[pk], actual)
        if any(not group_needs <= needs for _group, group_needs in groups):
            again.add(pk)
        elif changes:
            found[pk] = changes
            entries += [(pk, group, group_needs) for group, group_needs in groups]
    again |= _commit_groups(walk.view, entries, marks)
    for pk, changes in found.items():
        if pk not in again:
            _count(walk, changes)
    for pk in sorted(again):
        repair_partition(walk, pk)


def _count(walk: Walk, changes: list[Change]) -> None:
    walk.diff.add(changes)
    walk.diff.count(written=len(changes))
    walk.on_write(len(changes))


def repair_partition(walk: Walk, pk: str) -> None:
    for attempt in range(ATTEMPTS):
        marks = watermarks.read_partition(walk.view.client, walk.view.name, pk)  # before the shop read
        expected, actual = walk.expected(walk.shop.partition(pk)), walk.actual(pk)
        changes = compare(expected, actual)
        if not changes:
            return
        try:
            _write_partition(walk.view, pk, changes, expected, actual, marks)
        except Contended:
            time.sleep(full_jitter(attempt, base=0.05, cap=2.0))
            continue
        _count(walk, changes)
        return
    walk.diff.count(contended=1)
