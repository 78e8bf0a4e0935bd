"""Rebuild and verify the admin view while staff act and the stream sync applies records.

Both walk the tables in two passes; every view item lives under the PK of the shop item it follows from, so
a difference is always pinned to one partition of both tables:

1. each segment of a parallel Scan of the shop table yields its partitions; the view items they imply are
   looked up by key (consistent BatchGetItem, 100 keys a call): missing and differing items;
2. each segment of a parallel Scan of the view table (watermarks left out) yields its items; the shop item
   each follows from is looked up by key the same way: an item its source does not imply is extra.

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

Memory: per segment thread, one Scan page (``page_size`` items), about as many items looked up, and one
partition being repaired; besides that only counts and a few example keys.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from adminview import projection, repair
from adminview.models import pending_shards
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
from adminview.view_diff import EXAMPLES, Change, Diff, compare
from dynamo import ddb_json

DEFAULT_SETTLE_S = 3.0

__all__ = ["DEFAULT_SEGMENTS", "MAX_SEGMENTS", "Change", "Diff", "parallel_scan", "rebuild", "verify"]


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
    on_batch: Callable[[Walk, list[tuple[str, list[Image]]]], None] | None = None
    on_scan: Callable[[int], None] = _ignore
    on_write: Callable[[int], None] = _ignore
    # What the current walk reports: the shop walk missing and differing items, the view walk extra ones,
    # so a partition both walks flag is counted once.
    kinds: tuple[str, ...] = ()

    def expected(self, shop_items: list[Image]) -> dict[ViewKey, Image]:
        return projection.expected_view(shop_items, self.shards)

    def actual(self, pk: str) -> dict[ViewKey, Image]:
        return {ddb_json.item_key(i): i for i in self.view.partition(pk)}

    def changes(self, pk: str) -> list[Change]:
        """The partition read again, whole (consistent Queries): its differences of the kinds reported now."""
        found = compare(self.expected(self.shop.partition(pk)), self.actual(pk))
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
        found = self.view.get_many([k for _pk, _items, expected in batch for k in expected])
        differing = [
            (pk, items)
            for pk, items, expected in batch
            if any(found.get(key) != item for key, item in expected.items())
        ]
        if differing and self.on_batch:
            self.on_batch(self, differing)
            return
        for pk, _items in differing:
            self.on_differs(self, pk)

    def view_segment(self, segment: int) -> None:
        """Every view item must be implied by its source shop item (looked up by key): else it is extra."""
        pages = self.view.scan_pages(segment, self.segments, page_size=self.page_size, skip_watermarks=True)
        for page in pages:
            self._scanned("view_items")(len(page))
            sources = {ddb_json.item_key(item): projection.source_of(item) for item in page}
            found = self.shop.get_many(sorted({s for s in sources.values() if s is not None}))
            differing: dict[str, None] = {}
            for item in page:
                source = sources[ddb_json.item_key(item)]
                implied = projection.project_item(found.get(source), self.shards) if source else []
                if ddb_json.item_key(item) not in {ddb_json.item_key(i) for i in implied}:
                    differing[ddb_json.item_key(item)[0]] = None
            for pk in differing:
                self.on_differs(self, pk)

    def _scanned(self, counter: str) -> Callable[[int], None]:
        def seen(n: int) -> None:
            self.diff.count(**{counter: n})
            self.on_scan(n)

        return seen

    def run(self) -> Diff:
        started = time.monotonic()
        self.kinds = ("missing", "differing")
        in_segments(self.shop_segment, self.segments)
        self.kinds = ("extra",)
        in_segments(self.view_segment, self.segments)
        self.diff.seconds = time.monotonic() - started
        return self.diff


def _walk(
    on_differs: Callable[[Walk, str], None],
    *,
    segments: int,
    page_size: int,
    rate_limit: str | None,
    examples: int,
) -> Walk:
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

    def recheck(walk: Walk, pk: str) -> None:
        waited, pause = 0.0, min(0.2, settle_s)
        while True:
            changes = walk.changes(pk)
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
    walk = _walk(
        repair.repair_partition, segments=segments, page_size=page_size, rate_limit=rate_limit, examples=examples
    )
    walk.on_batch = repair.repair_batch
    walk.on_scan = on_scan or _ignore
    walk.on_write = on_write or _ignore
    return walk.run()
