"""Rebuild and verify the admin view while staff act and the stream sync applies records.

Both walk the tables partition by partition (every view item lives under the PK of the shop item it
follows from, so a shop partition and the view partition of the same key are compared on their own):

1. each segment of a parallel Scan of the shop table yields its partitions; one that implies view items
   is compared with one consistent Query of the view partition;
2. each segment of a parallel Scan of the view table (watermarks left out) yields its partitions; one
   whose shop partition (one consistent Query) implies nothing is compared too: all its items are extra.

A partition that differs is not acted on from what the scan saw; it is read again:

- ``verify`` re-reads both sides (consistent reads) until they agree or ``settle_s`` has passed, so a
  difference the live sync is about to fix is not reported;
- ``rebuild`` reads the partition's watermarks, *then* the shop partition and the view partition, and
  writes each source item's view items in one TransactWriteItems that also increments the watermarks
  they depend on (an order's buyer relations depend on the order's status too), conditioned on those
  watermarks being unchanged since they were read (absent and still absent). A watermark is advanced by
  the sync only after it wrote the view items, so an unchanged watermark means the sync applied nothing
  for that source since the read, and every record it had applied came from a shop write made before
  the watermark was read, hence before the shop read: the rebuild never writes a state older than what the
  sync has applied. If a condition fails, the sync got there first: the partition is read again and
  compared again. The sync in turn advances a watermark only if it is unchanged since *it* read it, and
  otherwise applies its records again (see ``adminview.watermarks``). The rebuild never sets ``Seq``,
  so every later stream record still applies after it.

Memory: one Scan page and one partition per segment thread, and counts plus a few example keys.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adminview import projection, watermarks
from adminview.models import ORDER_SK, pending_shards
from adminview.projection import Image, ViewKey
from adminview.table_walk import (
    DEFAULT_PAGE,
    DEFAULT_SEGMENTS,
    MAX_SEGMENTS,
    Table,
    in_segments,
    parallel_scan,
    partitions,
    shop_table,
    view_table,
)
from dynamo.batch import backoff_delay

DEFAULT_SETTLE_S = 3.0
ATTEMPTS = 10  # reads and writes of one partition the sync keeps beating, before reporting it contended
MAX_TRANSACTION = 100  # TransactWriteItems' limit on actions
EXAMPLES = 10
KINDS = ("missing", "extra", "differing")

__all__ = ["DEFAULT_SEGMENTS", "MAX_SEGMENTS", "Diff", "parallel_scan", "rebuild", "verify"]


def _ignore(_n: int) -> None:
    return None


@dataclass(frozen=True)
class Change:
    kind: str  # missing | extra | differing
    key: ViewKey
    expected: Image | None
    actual: Image | None


@dataclass
class Diff:
    """What differed (verify) or had to change (rebuild): counts and a few example keys of each kind."""

    missing: int = 0
    extra: int = 0
    differing: int = 0
    contended: int = 0  # partitions rebuild gave up on: the sync kept writing them
    shop_items: int = 0  # items scanned
    view_items: int = 0
    written: int = 0  # view items put or deleted
    seconds: float = 0.0
    examples: dict[str, list[ViewKey]] = field(default_factory=lambda: {k: [] for k in KINDS})
    max_examples: int = EXAMPLES
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def clean(self) -> bool:
        return not (self.missing or self.extra or self.differing or self.contended)

    def add(self, changes: list[Change]) -> None:
        with self._lock:
            for change in changes:
                setattr(self, change.kind, getattr(self, change.kind) + 1)
                if len(self.examples[change.kind]) < self.max_examples:
                    self.examples[change.kind].append(change.key)

    def count(self, **counts: int) -> None:
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    @property
    def items_per_second(self) -> float:
        return (self.shop_items + self.view_items) / self.seconds if self.seconds else 0.0

    def summary(self, examples: int = 5) -> str:
        line = f"missing {self.missing}, extra {self.extra}, differing {self.differing}"
        if self.contended:
            line += f", {self.contended} partitions still changing (the sync kept writing them: run again)"
        lines = [line]
        for kind in KINDS:
            for pk, sk in sorted(self.examples[kind])[:examples]:
                lines.append(f"  {kind}: {pk} {sk}")
        return "\n".join(lines)

    def rate_line(self) -> str:
        return (
            f"scanned {self.shop_items} shop items and {self.view_items} view items in {self.seconds:.1f}s "
            f"({self.items_per_second:.0f} items/s), wrote {self.written}"
        )


def compare(expected: dict[ViewKey, Image], actual: dict[ViewKey, Image]) -> list[Change]:
    changes = [
        Change("missing" if key not in actual else "differing", key, item, actual.get(key))
        for key, item in expected.items()
        if actual.get(key) != item
    ]
    changes += [Change("extra", key, None, item) for key, item in actual.items() if key not in expected]
    return changes


@dataclass
class _Walk:
    shop: Table
    view: Table
    diff: Diff
    shards: int
    segments: int
    page_size: int
    on_differs: Callable[[_Walk, str], None]
    on_scan: Callable[[int], None] = _ignore
    on_write: Callable[[int], None] = _ignore

    def expected(self, shop_items: list[Image]) -> dict[ViewKey, Image]:
        return projection.expected_view(shop_items, self.shards)

    def actual(self, pk: str) -> dict[ViewKey, Image]:
        return {projection.key_of(i): i for i in self.view.partition(pk)}

    def read_both(self, pk: str) -> tuple[list[Image], list[Change]]:
        shop_items = self.shop.partition(pk)
        return shop_items, compare(self.expected(shop_items), self.actual(pk))

    def shop_segment(self, segment: int) -> None:
        pages = self.shop.scan_pages(segment, self.segments, page_size=self.page_size)
        for pk, items in partitions(pages, self._scanned("shop_items")):
            expected = self.expected(items)
            if expected and compare(expected, self.actual(pk)):
                self.on_differs(self, pk)

    def view_segment(self, segment: int) -> None:
        pages = self.view.scan_pages(segment, self.segments, page_size=self.page_size, skip_watermarks=True)
        for pk, _items in partitions(pages, self._scanned("view_items")):
            if not self.expected(self.shop.partition(pk)):  # else the shop walk compared it
                self.on_differs(self, pk)

    def _scanned(self, counter: str) -> Callable[[int], None]:
        def seen(n: int) -> None:
            self.diff.count(**{counter: n})
            self.on_scan(n)

        return seen

    def run(self) -> Diff:
        started = time.monotonic()
        in_segments(self.shop_segment, self.segments)
        in_segments(self.view_segment, self.segments)
        self.diff.seconds = time.monotonic() - started
        return self.diff


def _walk(
    on_differs: Callable[[_Walk, str], None],
    *,
    segments: int,
    page_size: int,
    rate_limit: str | None,
    examples: int,
) -> _Walk:
    if not 1 <= segments <= MAX_SEGMENTS:
        raise ValueError(f"segments must be between 1 and {MAX_SEGMENTS}, got {segments}")
    if not 1 <= page_size <= 1000:
        raise ValueError(f"page size must be between 1 and 1000, got {page_size}")
    return _Walk(
        shop=shop_table(rate_limit),
        view=view_table(rate_limit),
        diff=Diff(max_examples=examples),
        shards=pending_shards(),
        segments=segments,
        page_size=page_size,
        on_differs=on_differs,
    )


# --- verify --------------------------------------------------------------------------------------------


def verify(
    *,
    segments: int = DEFAULT_SEGMENTS,
    page_size: int = DEFAULT_PAGE,
    rate_limit: str | None = None,
    settle_s: float = DEFAULT_SETTLE_S,
    examples: int = EXAMPLES,
    on_scan: Callable[[int], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Diff:
    """Compare the view with what the shop table implies. A differing partition is read again (consistent
    reads, after growing pauses, ``settle_s`` in all) and reported only if it still differs: the live
    sync applies a change within moments, a real divergence stays."""
    if settle_s < 0:
        raise ValueError("settle time must not be negative")

    def recheck(walk: _Walk, pk: str) -> None:
        waited, pause = 0.0, min(0.2, settle_s)
        while True:
            _shop_items, changes = walk.read_both(pk)
            if not changes:
                return
            if waited >= settle_s:
                walk.diff.add(changes)
                return
            sleep(pause)
            waited += pause
            pause = min(pause * 2, settle_s - waited)

    walk = _walk(recheck, segments=segments, page_size=page_size, rate_limit=rate_limit, examples=examples)
    walk.on_scan = on_scan or _ignore
    return walk.run()


# --- rebuild -------------------------------------------------------------------------------------------


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


def _write_partition(
    view: Table,
    pk: str,
    changes: list[Change],
    expected: dict[ViewKey, Image],
    actual: dict[ViewKey, Image],
    marks: dict[ViewKey, watermarks.Mark],
) -> None:
    """Pack the source groups into as few transactions as fit; a watermark appears once per transaction and
    is tracked across them (each transaction increments it)."""
    pending: list[Change] = []
    sources: set[ViewKey] = set()

    def flush() -> None:
        if not pending:
            return
        _commit(view, _actions(view, pending, marks, sources))
        for source in sources:
            old = marks.get(source, watermarks.Mark())
            marks[source] = watermarks.Mark(True, old.seq, old.next_rev)
        pending.clear()
        sources.clear()

    for group, needs in _groups(pk, changes, expected, actual):
        if len(pending) + len(group) + len(sources | needs) > MAX_TRANSACTION:
            flush()
        pending.extend(group)
        sources.update(needs)
    flush()


def _repair(walk: _Walk, pk: str) -> None:
    for attempt in range(ATTEMPTS):
        marks = watermarks.read_partition(walk.view.client, walk.view.name, pk)  # before the shop read
        expected, actual = walk.expected(walk.shop.partition(pk)), walk.actual(pk)
        changes = compare(expected, actual)
        if not changes:
            return
        try:
            _write_partition(walk.view, pk, changes, expected, actual, marks)
        except Contended:
            time.sleep(backoff_delay(attempt))
            continue
        walk.diff.add(changes)
        walk.diff.count(written=len(changes))
        walk.on_write(len(changes))
        return
    walk.diff.count(contended=1)


def rebuild(
    *,
    segments: int = DEFAULT_SEGMENTS,
    page_size: int = DEFAULT_PAGE,
    rate_limit: str | None = None,
    examples: int = EXAMPLES,
    on_scan: Callable[[int], None] | None = None,
    on_write: Callable[[int], None] | None = None,
) -> Diff:
    """Make the view equal to what the shop table implies, live: returns what had to change."""
    walk = _walk(_repair, segments=segments, page_size=page_size, rate_limit=rate_limit, examples=examples)
    walk.on_scan = on_scan or _ignore
    walk.on_write = on_write or _ignore
    return walk.run()
