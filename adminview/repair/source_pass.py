"""The walk's first pass (``adminview.repair.walk``): each segment of a parallel Scan of one source table yields its
partitions; the view items each implies (anchors, entries, activity entries) and its counted items are looked up
by key (consistent BatchGetItem, 100 keys a call) and compared. A partition that differs is flagged."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from adminview.core import schema
from adminview.core.sources import Source
from adminview.repair import partition
from adminview.repair.flags import Flag, Scope, Unanchored, comparable
from adminview.repair.partition import Item
from adminview.repair.table_walk import partitions
from adminview.repair.view_diff import Diff


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
        """One read (after the Scan) of what the batch's partitions imply, their possible anchors and counted
        items too: a differing partition with none of them stored is flagged with what the Scan saw. Into a view
        that held nothing as the walk began there is nothing to read: each partition is flagged so (its anchors
        are written on the condition that they are still absent, so one the sync wrote since is not lost)."""
        guards = {view.pk: _guards(view.source, view.pk, view.anchors) for view, _items in batch}
        wanted = [k for view, _items in batch for k in (*view.items(), *view.counted(), *guards[view.pk])]
        stored = {} if self.scope.diff.view_was_empty else self.scope.view.get_many(list(dict.fromkeys(wanted)))
        differing = []
        for view, items in batch:
            expected = view.items()
            same = all(
                comparable(k, stored.get(k)) and partition.comparable(stored[k]) == item for k, item in expected.items()
            )
            same = same and all(partition.counted_matches(k, stored.get(k), s) for k, s in view.counted().items())
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
