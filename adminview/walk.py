"""The two passes of rebuild and verify over both tables, flagging the partitions whose view items differ.

Every view item lives under the PK of the shop items it follows from, so a difference is always pinned to one
partition of both tables:

1. each segment of a parallel Scan of the shop table yields its partitions; the view items they imply
   (``anchors.implied_view``) are looked up by key (consistent BatchGetItem, 100 keys a call): missing and
   differing items;
2. each segment of a parallel Scan of the view table yields its items; the shop item each follows from is
   looked up by key the same way: an item its shop item does not imply is extra.

What to do with a flagged partition is the caller's (``on_differs``, or ``on_batch`` for several at once):
verify reads it again before reporting it, rebuild repairs it (``adminview.repair``). Bookkeeping (anchors'
sequence numbers and revisions, stubs) is never compared: a rebuild from the shop cannot know it.

The counters (``adminview.figures``) are checked in two steps, both exact under live traffic: each order's anchor
must have counted what its shop items contribute (a partition whose ``Counted`` differs is flagged like any other),
and each counter must equal the sum of what the anchors counted, summed during the view pass. A counter that
changed after the walk began is left for the next walk (``Diff.live_counters``): the anchors summed may then be
older or newer than it.

Memory: per segment thread, one Scan page (``page_size`` items) and about as many items looked up; besides
that the sums of the counters (one entry per counter item: per shard and day, per shard, product and month, never
per order) and a few example keys.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from adminview import anchors, figures, projection
from adminview.models import ORDER_SK, pending_shards
from adminview.projection import Image, ViewKey
from adminview.table_walk import MAX_SEGMENTS, Table, in_segments, partitions, shop_table, view_table
from adminview.view_diff import Change, Diff, compare
from dynamo import ddb_json
from shop import keys

Flagged = tuple[str, list[Image]]  # a partition key and the shop items a Scan saw in it (a hint, not a read)
COUNTER_CLOCK_MARGIN_S = 2.0  # how far writers' clocks may disagree (NTP keeps hosts far closer)


@dataclass(frozen=True)
class CounterDifference:
    key: figures.CounterKey
    expected: dict[str, Decimal]  # what the anchors counted
    stored: dict[str, Decimal]
    changed_at: float | None  # the counter's ``At`` as read (a correction is conditioned on it)


def _ignore(_n: int) -> None:
    return None


@dataclass
class Walk:
    shop: Table
    view: Table
    diff: Diff
    shards: int
    segments: int
    page_size: int
    on_differs: Callable[[Walk, str], None]
    on_batch: Callable[[Walk, list[Flagged]], None] | None = None
    on_counters: Callable[[Walk, list[CounterDifference]], None] | None = None
    on_scan: Callable[[int], None] = _ignore
    on_write: Callable[[int], None] = _ignore
    # What the current pass reports: the shop pass missing and differing items, the view pass extra ones,
    # so a partition both passes flag is counted once.
    kinds: tuple[str, ...] = ()
    started: float = 0.0  # wall clock, for the counters' ``At``
    counted: figures.Deltas = field(default_factory=dict)  # the anchors' Counted, summed per counter item
    counters: dict[figures.CounterKey, tuple[dict[str, Decimal], float | None]] = field(default_factory=dict)
    _sums: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def expected(self, shop_items: list[Image]) -> dict[ViewKey, Image]:
        return anchors.implied_view(shop_items, self.shards)

    def actual(self, pk: str) -> dict[ViewKey, Image]:
        return anchors.comparable(self.view.partition(pk))

    def changes(self, pk: str) -> list[Change]:
        """The partition read again, whole (consistent Queries): its differences of the kinds reported now, an
        anchor that has not counted what its shop items contribute among the differing."""
        shop_items, view_items = self.shop.partition(pk), self.view.partition(pk)
        found = compare(self.expected(shop_items), anchors.comparable(view_items))
        anchor = (pk, ORDER_SK)
        if "differing" in self.kinds and not any(c.key == anchor for c in found):
            stored = next((i for i in view_items if ddb_json.item_key(i) == anchor), None)
            if anchors.counted_differs(anchor, shop_items, stored):
                found.append(Change("differing", anchor, None, stored))
        return [c for c in found if c.kind in self.kinds]

    def shop_segment(self, segment: int) -> None:
        """Every view item the shop partitions imply, looked up by key, a page's worth at a time."""
        pages = self.shop.scan_pages(segment, self.segments, page_size=self.page_size)
        batch: list[tuple[str, list[Image], dict[ViewKey, Image]]] = []
        keys = 0
        for pk, items in partitions(pages, self._scanned("shop_items")):
            expected = self.expected(items)
            if expected:
                batch.append((pk, items, expected))
                keys += len(expected)
            if keys >= self.page_size:  # memory: a page's worth of view items at a time
                self._check_expected(batch)
                batch, keys = [], 0
        self._check_expected(batch)

    def _check_expected(self, batch: list[tuple[str, list[Image], dict[ViewKey, Image]]]) -> None:
        raw = self.view.get_many([k for _pk, _items, expected in batch for k in expected])
        found = anchors.comparable(raw.values())
        differing = [
            (pk, items)
            for pk, items, expected in batch
            if any(found.get(key) != item for key, item in expected.items())
            or anchors.counted_differs((pk, ORDER_SK), items, raw.get((pk, ORDER_SK)))
        ]
        if differing and self.on_batch:
            self.on_batch(self, differing)
            return
        for pk, _items in differing:
            self.on_differs(self, pk)

    def view_segment(self, segment: int) -> None:
        """Every view item must be implied by its shop item (looked up by key): else it is extra."""
        pages = self.view.scan_pages(segment, self.segments, page_size=self.page_size, skip_legacy=True)
        for page in pages:
            self._scanned("view_items")(len(page))
            self._sum_counters(page)
            shown = [item for item in page if not anchors.is_stub(item) and not figures.is_counter(item)]
            sources = {ddb_json.item_key(item): projection.source_of(item) for item in shown}
            found = self.shop.get_many(sorted({s for s in sources.values() if s is not None}))
            differing: dict[str, None] = {}
            for item in shown:
                key = ddb_json.item_key(item)
                source = sources[key]
                implied = anchors.implied_view([found[source]], self.shards) if source in found else {}
                # a category entry follows from its order's lines as well: the order existing is enough here
                # (the shop pass compared the collection's entries with what its items imply)
                whole = ddb_json.string(item, "Kind") == "category" and source in found
                if key not in implied and not whole:
                    differing[key[0]] = None
            for pk in differing:
                self.on_differs(self, pk)

    def _sum_counters(self, page: list[Image]) -> None:
        """What the anchors of this page counted, and the counters it holds, added to the walk's sums."""
        counted: list[figures.Deltas] = []
        seen: dict[figures.CounterKey, tuple[dict[str, Decimal], float | None]] = {}
        shards = figures.stats_shards()
        for item in page:
            pk, sk = ddb_json.item_key(item)
            if figures.is_counter(item):
                seen[(pk, sk)] = (figures.counter_values(item), ddb_json.number(item, figures.CHANGED_AT))
            elif sk == ORDER_SK and (order_id := keys.without_prefix(pk, keys.ORDER)):
                counted.append(figures.counted(order_id, item).deltas(shards))
        with self._sums:
            self.counted = figures.merge([self.counted, *counted])
            self.counters.update(seen)

    def counter_differences(self) -> tuple[list[CounterDifference], int]:
        """Counters that are not the sum of what the anchors counted, and how many were left out because they
        changed after the walk began."""
        differences, live = [], 0
        for key in sorted(set(self.counted) | set(self.counters)):
            expected = {name: value for name, value in self.counted.get(key, {}).items() if value}
            stored, changed_at = self.counters.get(key, ({}, None))
            if {n: v for n, v in stored.items() if v} == expected:
                continue
            if changed_at is not None and changed_at >= self.started - COUNTER_CLOCK_MARGIN_S:
                live += 1
                continue
            differences.append(CounterDifference(key, expected, stored, changed_at))
        return differences, live

    def _scanned(self, counter: str) -> Callable[[int], None]:
        def seen(n: int) -> None:
            self.diff.count(**{counter: n})
            self.on_scan(n)

        return seen

    def run(self) -> Diff:
        started = time.monotonic()
        self.started = time.time()
        self.kinds = ("missing", "differing")
        in_segments(self.shop_segment, self.segments)
        self.kinds = ("extra",)
        in_segments(self.view_segment, self.segments)
        differences, live = self.counter_differences()
        self.diff.count(live_counters=live)
        if differences and self.on_counters:
            self.on_counters(self, differences)
        self.diff.seconds = time.monotonic() - started
        return self.diff


def walk(
    on_differs: Callable[[Walk, str], None],
    *,
    segments: int,
    page_size: int,
    rate_limit: str | None,
    examples: int,
) -> Walk:
    """A walk of both tables (checked options; ``ValueError`` with a message fit for the command line)."""
    if not 1 <= segments <= MAX_SEGMENTS:
        raise ValueError(f"segments must be between 1 and {MAX_SEGMENTS}, got {segments}")
    if not 1 <= page_size <= 1000:
        raise ValueError(f"page size must be between 1 and 1000, got {page_size}")
    return Walk(
        shop=shop_table(rate_limit),
        view=view_table(rate_limit),
        diff=Diff(max_examples=examples),
        shards=pending_shards(),
        segments=segments,
        page_size=page_size,
        on_differs=on_differs,
    )
