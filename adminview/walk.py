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

Memory: per segment thread, one Scan page (``page_size`` items) and about as many items looked up; besides
that only counts and a few example keys.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from adminview import anchors, projection
from adminview.models import pending_shards
from adminview.projection import Image, ViewKey
from adminview.table_walk import MAX_SEGMENTS, Table, in_segments, partitions, shop_table, view_table
from adminview.view_diff import Change, Diff, compare
from dynamo import ddb_json

Flagged = tuple[str, list[Image]]  # a partition key and the shop items a Scan saw in it (a hint, not a read)


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
    on_scan: Callable[[int], None] = _ignore
    on_write: Callable[[int], None] = _ignore
    # What the current pass reports: the shop pass missing and differing items, the view pass extra ones,
    # so a partition both passes flag is counted once.
    kinds: tuple[str, ...] = ()

    def expected(self, shop_items: list[Image]) -> dict[ViewKey, Image]:
        return anchors.implied_view(shop_items, self.shards)

    def actual(self, pk: str) -> dict[ViewKey, Image]:
        return anchors.comparable(self.view.partition(pk))

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
        found = anchors.comparable(
            self.view.get_many([k for _pk, _items, expected in batch for k in expected]).values()
        )
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
        """Every view item must be implied by its shop item (looked up by key): else it is extra."""
        pages = self.view.scan_pages(segment, self.segments, page_size=self.page_size, skip_legacy=True)
        for page in pages:
            self._scanned("view_items")(len(page))
            shown = [item for item in page if not anchors.is_stub(item)]
            sources = {ddb_json.item_key(item): projection.source_of(item) for item in shown}
            found = self.shop.get_many(sorted({s for s in sources.values() if s is not None}))
            differing: dict[str, None] = {}
            for item in shown:
                key = ddb_json.item_key(item)
                source = sources[key]
                implied = anchors.implied_view([found[source]], self.shards) if source in found else {}
                if key not in implied:
                    differing[key[0]] = None
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
