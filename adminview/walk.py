"""The two passes of rebuild and verify over both tables, flagging the partitions whose view items differ.

Every view item lives under the PK of the shop items it follows from, so a difference is always pinned to one
partition of both tables:

1. each segment of a parallel Scan of the shop table yields its partitions; of the view items they imply
   (``anchors.implied_view``), the anchor and the staff activity items are looked up by key (consistent
   BatchGetItem, 100 keys a call) and compared: an anchor holds the facts all its other items follow from;
2. each segment of a parallel Scan of the view table yields its partitions; the items an anchor describes must be
   what it implies (``anchors.State.items``, no read needed), and the shop items the anchor and the activity
   items follow from must still exist (looked up by key, one per anchor): else the partition differs.

So each view item is read once by the scan, and each partition's anchor looked up once, however many items
follow from it.

What to do with a flagged partition is the caller's (``on_differs``, or ``on_batch`` for several at once):
verify reads it again before reporting it, rebuild repairs it (``adminview.repair``). Bookkeeping (anchors'
sequence numbers and revisions, stubs) is never compared: a rebuild from the shop cannot know it.

The counters (``adminview.figures``) are checked in two steps, both exact under live traffic: each order's anchor
must have counted what its shop items contribute (a partition whose ``#counted`` item differs is flagged like any
other), and each counter must equal the sum of what the orders counted, summed during the view pass. A counter that
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
from adminview.models import ORDER_SK, PRODUCT_SK, PROFILE_SK, pending_shards
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


def anchor_of(pk: str) -> ViewKey | None:
    """The anchor of a partition's view items, if its kind of partition has one."""
    if pk.startswith(keys.ORDER):
        return pk, ORDER_SK
    if pk.startswith(keys.CUSTOMER):
        return pk, PROFILE_SK
    if pk.startswith(keys.PRODUCT):
        return pk, PRODUCT_SK
    return None


def _checked(pk: str, expected: dict[ViewKey, Image]) -> dict[ViewKey, Image]:
    """What the shop pass looks up of a partition's expected view items: its anchor, which holds the facts all
    its other items follow from (the view pass compares those with it), and its staff activity items."""
    key = anchor_of(pk)
    return {k: item for k, item in expected.items() if k == key or ddb_json.string(item, "Kind") == "activity"}


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
    started: float = 0.0  # wall clock, for the counters' ``At``
    counted: figures.Deltas = field(default_factory=dict)  # the anchors' Counted, summed per counter item
    counters: dict[figures.CounterKey, tuple[dict[str, Decimal], float | None]] = field(default_factory=dict)
    _sums: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def expected(self, shop_items: list[Image]) -> dict[ViewKey, Image]:
        return anchors.implied_view(shop_items, self.shards)

    def actual(self, pk: str) -> dict[ViewKey, Image]:
        return anchors.comparable(self.view.partition(pk))

    def changes(self, pk: str) -> list[Change]:
        """The partition read again, whole (consistent Queries): its differences, an order's anchor that has not
        counted what its shop items contribute among them."""
        shop_items, view_items = self.shop.partition(pk), self.view.partition(pk)
        found = compare(self.expected(shop_items), anchors.comparable(view_items))
        counted = figures.counted_key(pk)
        stored = next((i for i in view_items if ddb_json.item_key(i) == counted), None)
        if anchors.counted_differs((pk, ORDER_SK), shop_items, stored):
            found.append(Change("differing", counted, None, stored))
        return found

    def _flagged(self, differing: list[Flagged]) -> None:
        """Partitions the shop pass found differing, with the items its Scan saw (``on_batch`` may act on
        several at once)."""
        if differing and self.on_batch:
            self.on_batch(self, differing)
            return
        for pk, _items in differing:
            self.on_differs(self, pk)

    # --- the shop pass: each shop partition's anchor and activity items ------------------------------------

    def shop_segment(self, segment: int) -> None:
        pages = self.shop.scan_pages(segment, self.segments, page_size=self.page_size)
        batch: list[tuple[str, list[Image], dict[ViewKey, Image]]] = []
        held = 0
        for pk, items in partitions(pages, self._scanned("shop_items")):
            checked = _checked(pk, self.expected(items))
            if checked:
                batch.append((pk, items, checked))
                held += len(items) + len(checked)
            if held >= self.page_size:  # memory: about a page's worth of items at a time
                self._check_expected(batch)
                batch, held = [], 0
        self._check_expected(batch)

    def _check_expected(self, batch: list[tuple[str, list[Image], dict[ViewKey, Image]]]) -> None:
        wanted = [k for _pk, _items, checked in batch for k in checked]
        raw = self.view.get_many(wanted + [figures.counted_key(pk) for pk, _items, _checked in batch])
        found = anchors.comparable(raw.values())
        self._flagged(
            [
                (pk, items)
                for pk, items, checked in batch
                if any(found.get(key) != item for key, item in checked.items())
                or anchors.counted_differs((pk, ORDER_SK), items, raw.get(figures.counted_key(pk)))
            ]
        )

    # --- the view pass: what each anchor implies, and the shop items it follows from ------------------------

    def view_segment(self, segment: int) -> None:
        pages = self.view.scan_pages(segment, self.segments, page_size=self.page_size, skip_legacy=True)
        batch: list[tuple[str, list[Image], list[ViewKey]]] = []
        held = 0
        for pk, items in partitions(pages, self._scanned("view_items")):
            self._sum_counters(items)
            if figures.is_counter(items[0]):
                continue
            needed = self._sources_if_consistent(pk, items)
            if needed is None:
                self.on_differs(self, pk)  # read again whole: the view pass saw no shop items
                continue
            batch.append((pk, [], needed))  # the items were checked: only their sources are kept
            held += len(needed)
            if held >= self.page_size:
                self._check_sources(batch)
                batch, held = [], 0
        self._check_sources(batch)

    def _sources_if_consistent(self, pk: str, items: list[Image]) -> list[ViewKey] | None:
        """The shop items this view partition follows from (to be looked up), or None when its items are not
        what its anchor implies (no read needed to tell)."""
        key = anchor_of(pk)
        stored = {ddb_json.item_key(i): i for i in items}
        anchor = stored.get(key) if key else None
        state = anchors.read(key, anchor) if key and anchor else None
        implied = state.items(self.shards) if state is not None else {}
        needed: list[ViewKey] = []
        for item_key, item in stored.items():
            if anchors.is_stub(item) or figures.is_counted(item):
                continue
            if ddb_json.string(item, "Kind") == "activity":
                source = projection.source_of(item)
                if source is None:
                    return None
                needed.append(source)
            elif item_key not in implied or anchors.without_bookkeeping(
                implied[item_key]
            ) != anchors.without_bookkeeping(item):
                return None
        described = {k for k, item in implied.items() if not anchors.is_stub(item)}
        if not described <= set(stored):
            return None  # the anchor says an item exists that the view lacks
        if state is not None and state.present():
            needed.append((pk, min(state.present())))  # the anchor's shop items are still there
        return needed

    def _check_sources(self, batch: list[tuple[str, list[Image], list[ViewKey]]]) -> None:
        found = self.shop.get_many(sorted({k for _pk, _items, needed in batch for k in needed}))
        for pk, _items, needed in batch:
            if any(k not in found for k in needed):
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
            elif figures.is_counted(item) and (order_id := keys.without_prefix(pk, keys.ORDER)):
                counted.append(figures.counted(order_id, item).deltas(shards))
        with self._sums:
            figures.add_into(self.counted, counted)
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
        in_segments(self.shop_segment, self.segments)
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
