"""The two passes of rebuild and verify over the source tables and the view (``docs/repair.md``, "How they walk
the tables"), flagging the source partitions whose view items differ from what they imply: the source pass here,
the view pass in ``adminview.repair.view_pass``. A flagged partition goes to the caller (``on_differs``, or
``on_batch`` for several at once): verify reads it again before reporting it, rebuild repairs it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from adminview.core import numbers, schema
from adminview.core.sources import Source, sources
from adminview.repair import partition
from adminview.repair.flags import CounterDifference, Flag, Scope, Unanchored
from adminview.repair.partition import Item
from adminview.repair.table_walk import ignore, in_segments, partitions, source_table, view_table
from adminview.repair.view_diff import Diff
from adminview.repair.view_pass import ViewPass
from dynamo.arguments import check_segments
from dynamo.paging import check_limit


def implied(diff: Diff, source: Source, pk: str, items: list[Item], shards: int) -> partition.PartitionView | None:
    """What a source partition implies; None, noted in the diff, when its items cannot be projected."""
    try:
        return partition.implied_by(source, pk, items, shards)
    except ValueError as exc:
        diff.cannot_project(pk, str(exc))
        return None


@dataclass
class SourcePass:
    scope: Scope
    source: Source
    flagged: Callable[[list[Flag]], None]
    scanned: Callable[[int], None]

    def segment(self, segment: int) -> None:
        scope = self.scope
        pages = scope.table(self.source).scan_pages(segment, scope.segments, page_size=scope.page_size)
        batch: list[tuple[partition.PartitionView, list[Item]]] = []
        held = 0
        for pk, items in partitions(pages, self.scanned):
            view = implied(scope.diff, self.source, pk, items, scope.shards)
            if view is not None and (view.anchors or view.free):
                batch.append((view, items))
                held += len(items) + len(view.free) + 4 * len(view.anchors)
            if held >= scope.page_size:  # memory: about a page's worth of items at a time
                self._check_implied(batch)
                batch, held = [], 0
        self._check_implied(batch)

    def _check_implied(self, batch: list[tuple[partition.PartitionView, list[Item]]]) -> None:
        """One read (after the Scan) of what the batch's partitions imply and of their possible anchors: one with
        none of them stored (in a view that held nothing, every one) is flagged with what the Scan saw."""
        guards = {view.pk: _guards(view.source, view.pk, view.anchors) for view, _items in batch}
        wanted = [k for view, _items in batch for k in (*view.items(), *view.counted(), *guards[view.pk])]
        stored = {} if self.scope.diff.view_was_empty else self.scope.view.get_many(list(dict.fromkeys(wanted)))
        differing, compared = [], partition.compared(stored)
        for view, items in batch:
            expected = view.items()
            same = all(compared.get(k) == item for k, item in expected.items())
            same = same and all(numbers.read_counted(k, stored.get(k)).sums == s for k, s in view.counted().items())
            if same:
                continue
            seen = None
            if not any(k in stored for k in guards[view.pk]):
                held = {k: stored[k] for k in (*expected, *view.counted()) if k in stored}
                seen = Unanchored(tuple(items), held)
            differing.append(Flag(view.source, view.pk, seen=seen))
        self.flagged(differing)


def _guards(source: Source, pk: str, implied: Iterable[schema.Key]) -> list[schema.Key]:
    """The anchors a source partition's items can hang on or do, and their counted items."""
    anchors = list(dict.fromkeys([*source.anchors_in(pk), *implied]))
    return [*anchors, *(schema.counted(key) for key in anchors if source.counts(key))]


@dataclass
class Walk(Scope):
    on_differs: Callable[[Walk, Flag], None]
    on_batch: Callable[[Walk, list[Flag]], None] | None = None
    on_counters: Callable[[Walk, list[CounterDifference]], None] | None = None
    on_orphans: Callable[[Walk, list[schema.Key]], None] | None = None
    after_sources: Callable[[Walk], None] | None = None  # once every source pass is done, before the view pass
    on_scan: Callable[[int], None] = ignore
    on_write: Callable[[int], None] = ignore

    def _flagged(self, flags: list[Flag]) -> None:
        if flags and self.on_batch:
            self.on_batch(self, flags)
            return
        for flag in flags:
            self.on_differs(self, flag)

    def _scanned(self, counter: str) -> Callable[[int], None]:
        def seen(n: int) -> None:
            self.diff.count(**{counter: n})
            self.on_scan(n)

        return seen

    def run(self) -> Diff:
        started, differs = time.monotonic(), functools.partial(self.on_differs, self)
        orphaned = functools.partial(self.on_orphans, self) if self.on_orphans else None
        view_pass = ViewPass(self, time.time(), self._flagged, differs, orphaned, self._scanned("view_items"))
        self.diff.view_was_empty = self.view.holds_nothing()  # nothing to read back or walk in step 2
        for source in sources():
            source_pass = SourcePass(self, source, self._flagged, self._scanned("source_items"))
            in_segments(source_pass.segment, self.segments)
        if self.after_sources:
            self.after_sources(self)
        if not self.diff.view_was_empty:
            in_segments(view_pass.segment, self.segments)
        differences, live = view_pass.counter_differences()
        self.diff.count(live_counters=live)
        if differences and self.on_counters:
            self.on_counters(self, differences)
        self.diff.seconds = time.monotonic() - started
        return self.diff


def walk(
    on_differs: Callable[[Walk, Flag], None],
    *,
    segments: int,
    page_size: int,
    rate_limit: str | None,
    examples: int,
) -> Walk:
    """A walk of every table (checked options; ``ValueError`` with a message fit for the command line)."""
    return Walk(
        segments=check_segments(segments),  # the options are checked before any table is described
        page_size=check_limit(page_size),
        view=view_table(rate_limit),
        tables={source.name: source_table(source, rate_limit) for source in sources()},
        diff=Diff(max_examples=examples),
        shards=schema.list_shards(),
        on_differs=on_differs,
    )
