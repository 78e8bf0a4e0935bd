"""The two passes of rebuild and verify over the source tables and the view (``docs/repair.md`` gives them step by
step), flagging the source partitions whose view items differ from what they imply: the source pass
(``adminview.repair.source_pass``) compares what each source partition implies with the view, the view pass
(``adminview.repair.view_pass``) checks that each view item still follows from one and each sum is the total of
what the counted items say. What to do with a flagged partition is the caller's (``on_differs``, or ``on_batch``
for several at once): verify reads it again before reporting it, rebuild repairs it (``adminview.repair.repair``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from adminview.core import schema
from adminview.core.sources import sources
from adminview.repair.flags import CounterDifference, Flag, Scope
from adminview.repair.source_pass import SourcePass
from adminview.repair.table_walk import MAX_SEGMENTS, ignore, in_segments, source_table, view_table
from adminview.repair.view_diff import Diff
from adminview.repair.view_pass import ViewPass


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

    def _view_pass(self, started: float) -> ViewPass:
        on_orphans = self.on_orphans
        return ViewPass(
            self,
            started,
            self._flagged,
            lambda flag: self.on_differs(self, flag),
            (lambda orphans: on_orphans(self, orphans)) if on_orphans else None,
            self._scanned("view_items"),
        )

    def run(self) -> Diff:
        started = time.monotonic()
        view_pass = self._view_pass(time.time())
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
    if not 1 <= segments <= MAX_SEGMENTS:
        raise ValueError(f"segments must be between 1 and {MAX_SEGMENTS}, got {segments}")
    if not 1 <= page_size <= 1000:
        raise ValueError(f"page size must be between 1 and 1000, got {page_size}")
    return Walk(
        view=view_table(rate_limit),
        tables={source.name: source_table(source, rate_limit) for source in sources()},
        diff=Diff(max_examples=examples),
        shards=schema.list_shards(),
        segments=segments,
        page_size=page_size,
        on_differs=on_differs,
    )


__all__ = ["Walk", "walk"]
