"""The two passes of rebuild and verify over the source tables and the view, flagging the source partitions whose
view items differ from what they imply.

Every view item follows from one source partition (``adminview.repair.partition``), so a difference is always pinned to
one; what to do with a flagged partition is the caller's (``on_differs``, or ``on_batch`` for several at once):
verify reads it again before reporting it, rebuild repairs it (``adminview.repair.repair``).

1. each segment of a parallel Scan of every source table yields its partitions; the view items they imply
   (anchors, entries, activity entries) and each counted item are looked up by key (consistent
   BatchGetItem, 100 keys a call) and compared;
2. each segment of a parallel Scan of the view yields its partitions; each item must still follow from a source
   partition: an anchor's source items still exist (one looked up per anchor), an entry is what its stored anchor
   implies (anchors looked up by key; what they imply needs no read), an activity entry's audit entry still
   exists, a counted item has an anchor beside it. The sums are summed from the counted items on the way.
   An item no source implies at all (a kind the view no longer writes) is an orphan, deleted by a rebuild.
   A view that held nothing when the walk began is neither read in step 1 nor walked in step 2: every item in it
   since was written by this walk or by a writer that keeps the protocol.

The sums (``adminview.core.numbers``) are checked in two steps, both exact under live traffic: each order must have
counted what its source items contribute (step 1), and each sum must equal the sum of what the orders counted
(step 2). A sum that changed after the walk began is left for the next walk (``Diff.live_counters``).

Memory: per segment thread, one Scan page and about as many items looked up; besides that the sums (one entry
per sum item, never per order: one per customer refunded), the buyer relations of the last ``RELATIONS_HELD``
customers checked, and a few example keys.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from adminview.core import numbers, schema, values
from adminview.core.sources import Source, sources
from adminview.core.sources.shop import audit_source
from adminview.repair import partition
from adminview.repair.partition import Item, SourcePartition
from adminview.repair.table_walk import MAX_SEGMENTS, Table, in_segments, partitions, source_table, view_table
from adminview.repair.view_diff import Change, Diff, compare
from shop import keys

COUNTER_CLOCK_MARGIN_S = 2.0  # how far writers' clocks may disagree (NTP keeps hosts far closer)
RELATIONS_HELD = 10_000  # customers whose buyer relations the view pass keeps as read


@dataclass(frozen=True)
class Unanchored:
    """A source partition as the source pass scanned it, when a consistent read made after the Scan found none of
    its anchors or counted items: the view items it implies that were stored then, beside its items."""

    items: tuple[Item, ...]
    stored: dict[schema.Key, Item]


@dataclass(frozen=True)
class Flag:
    """A source partition to look at again, and stored view items that no source item implies (found by the
    view pass: the repair deletes them). ``seen``: the partition as scanned, when it had no anchor stored."""

    source: Source
    pk: str
    extras: frozenset[schema.Key] = frozenset()
    seen: Unanchored | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class CounterDifference:
    key: schema.Key
    expected: dict[str, Decimal]  # what the orders counted
    stored: dict[str, Decimal]
    changed_at: float | None  # the sum's ``At`` as read (a correction is conditioned on it)


def _ignore(_n: int) -> None:
    return None


@dataclass
class Walk:
    view: Table
    tables: dict[str, Table]  # each source's table, by source name
    diff: Diff
    shards: int
    segments: int
    page_size: int
    on_differs: Callable[[Walk, Flag], None]
    on_batch: Callable[[Walk, list[Flag]], None] | None = None
    on_counters: Callable[[Walk, list[CounterDifference]], None] | None = None
    on_orphans: Callable[[Walk, list[schema.Key]], None] | None = None
    on_scan: Callable[[int], None] = _ignore
    on_write: Callable[[int], None] = _ignore
    started: float = 0.0  # wall clock, for the sums' ``At``
    counted: numbers.Deltas = field(default_factory=dict)  # the counted items' sums, summed per sum item
    counters: dict[schema.Key, tuple[dict[str, Decimal], float | None]] = field(default_factory=dict)
    relation_differences: list[CounterDifference] = field(default_factory=list)
    relations_read: OrderedDict[str, dict[schema.Key, Decimal]] = field(default_factory=OrderedDict)
    _sums: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def table(self, source: Source) -> Table:
        return self.tables[source.name]

    def implied(self, source: Source, pk: str, items: list[Item]) -> partition.PartitionView | None:
        """What a source partition implies; None, noted in the diff, when its items cannot be projected."""
        try:
            return partition.implied_by(source, pk, items, self.shards)
        except ValueError as exc:
            self.diff.cannot_project(pk, str(exc))
            return None

    def changes(self, flag: Flag) -> list[Change]:
        """The source partition read again, whole (consistent reads): its differences."""
        view = self.implied(flag.source, flag.pk, self.table(flag.source).partition(flag.pk))
        if view is None:
            return []
        expected = view.items()
        stored_anchors = self.view.get_many(flag.source.anchors_in(flag.pk))
        described = _described(flag.source, stored_anchors, self.shards)
        counted = view.counted()
        wanted = set(expected) | set(described) | set(counted) | set(flag.extras)
        wanted |= {schema.counted(key) for key in stored_anchors if flag.source.counts(key)}
        stored = stored_anchors | self.view.get_many(sorted(wanted - set(stored_anchors)))
        found = compare(
            expected,
            {k: partition.comparable(i) for k, i in stored.items() if k not in counted and _comparable(k, i)},
        )
        for key, sums in counted.items():
            if not partition.counted_matches(key, stored.get(key), sums):
                found.append(Change("differing", key, None, stored.get(key)))
        for key, item in stored.items():  # a counted item for an anchor the source no longer implies
            counted_elsewhere = values.string(item, schema.KIND) == schema.COUNTED and key not in counted
            if counted_elsewhere and not partition.counted_matches(key, item, {}):
                found.append(Change("extra", key, None, item))
        return found

    def _flagged(self, flags: list[Flag]) -> None:
        if flags and self.on_batch:
            self.on_batch(self, flags)
            return
        for flag in flags:
            self.on_differs(self, flag)

    # --- the source pass: what each source partition implies, looked up ------------------------------------

    def source_segment(self, source: Source, segment: int) -> None:
        table = self.table(source)
        pages = table.scan_pages(segment, self.segments, page_size=self.page_size)
        batch: list[tuple[partition.PartitionView, list[Item]]] = []
        held = 0
        for pk, items in partitions(pages, self._scanned("source_items")):
            view = self.implied(source, pk, items)
            if view is not None and (view.anchors or view.free):
                batch.append((view, items))
                held += len(items) + len(view.free) + 4 * len(view.anchors)
            if held >= self.page_size:  # memory: about a page's worth of items at a time
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
        stored = {} if self.diff.view_was_empty else self.view.get_many(list(dict.fromkeys(wanted)))
        differing = []
        for view, items in batch:
            expected = view.items()
            same = all(
                _comparable(k, stored.get(k)) and partition.comparable(stored[k]) == item
                for k, item in expected.items()
            )
            same = same and all(partition.counted_matches(k, stored.get(k), s) for k, s in view.counted().items())
            if same:
                continue
            seen = None
            if not any(k in stored for k in guards[view.pk]):
                held = {k: stored[k] for k in (*expected, *view.counted()) if k in stored}
                seen = Unanchored(tuple(items), held)
            differing.append(Flag(view.source, view.pk, seen=seen))
        self._flagged(differing)

    # --- the view pass: each item still follows from a source partition --------------------------------------

    def view_segment(self, segment: int) -> None:
        """Page by page (a customer's partition grows with their orders: it is never held whole)."""
        seen = self._scanned("view_items")
        checked: str | None = None  # the last customer checked: a partition's pages come one after another
        for page in self.view.scan_pages(segment, self.segments, page_size=self.page_size):
            seen(len(page))
            self._sum_counters(page)
            relations = [i for i in page if values.item_key(i)[0].startswith(schema.BUYERS_PREFIX)]
            self._check_stored([i for i in page if not schema.is_sum(values.item_key(i))])
            customers = {cid for i in page if (cid := keys.without_prefix(values.item_key(i)[0], keys.CUSTOMER))}
            self._check_relations(customers - {checked}, relations)
            last = keys.without_prefix(values.item_key(page[-1])[0], keys.CUSTOMER) if page else None
            checked = last or checked

    # --- buyer relations: each customer's, from the counted items of their orders ----------------------------

    def _check_relations(self, customers: set[str], relations: list[Item]) -> None:
        """A buyer relation is the sum of what the customer's orders counted for the product. Each customer whose
        partition or relations this batch holds is checked: the relations their orders imply must be stored, and
        each stored relation must be implied (one Query of the customer's order entries, one BatchGetItem of
        their counted items), so the walk never holds every relation at once."""
        owners = customers | {keys.without_prefix(values.item_key(r)[1], keys.CUSTOMER) or "" for r in relations}
        expected = {key: value for c in sorted(owners) for key, value in self._relations_held(c).items()}
        held = {values.item_key(r): r for r in relations}
        wanted = [key for key in expected if key not in held]
        held |= self.view.get_many(wanted)
        differences = []
        for key in sorted(set(expected) | set(held)):
            stored = numbers.sum_values(held[key]) if key in held else {}
            want = {schema.ORDERS: expected[key]} if expected.get(key) else {}
            if {n: v for n, v in stored.items() if v} != want:
                changed_at = values.number(held.get(key), schema.CHANGED_AT)
                differences.append(CounterDifference(key, want, stored, changed_at))
        if differences:
            with self._sums:
                self.relation_differences += differences

    def _relations_held(self, customer_id: str) -> dict[schema.Key, Decimal]:
        """``_relations_of``, read once per customer while it is among the last ``RELATIONS_HELD`` read: a customer
        comes up again on the page of each product they bought. A relation changed between the read and its
        check was changed after the walk began (its ``At`` says so): it is left for the next walk."""
        with self._sums:
            found = self.relations_read.get(customer_id)
            if found is not None:
                self.relations_read.move_to_end(customer_id)
                return found
        found = self._relations_of(customer_id)
        with self._sums:
            self.relations_read[customer_id] = found
            while len(self.relations_read) > RELATIONS_HELD:
                self.relations_read.popitem(last=False)
        return found

    def _relations_of(self, customer_id: str) -> dict[schema.Key, Decimal]:
        """What the customer's orders imply for their buyer relations: their order entries read page by page and
        their counted items looked up (memory grows with the products they bought, never with their orders)."""
        found: dict[schema.Key, Decimal] = {}
        for page in self.view.pages_of(
            keys.customer(customer_id), schema.CUSTOMER_ORDER_PREFIX, page_size=self.page_size
        ):
            orders = [oid for item in page if (oid := values.string(item, "OrderId"))]
            counted = [schema.counted(schema.order_anchor(oid)) for oid in orders]
            for key, item in self.view.get_many(counted).items():
                for relation, figures in numbers.read_counted(key, item).sums.items():
                    if relation[0].startswith(schema.BUYERS_PREFIX) and relation[1] == keys.customer(customer_id):
                        found[relation] = found.get(relation, Decimal(0)) + figures.get(schema.ORDERS, Decimal(0))
        return found

    def _check_stored(self, items: list[Item]) -> None:
        anchors: dict[schema.Key, Item] = {}
        entries: dict[schema.Key, list[Item]] = {}  # anchor key -> entries said to follow from it
        activity: list[tuple[SourcePartition, Item]] = []
        orphans: list[schema.Key] = []
        lonely_counted: list[schema.Key] = []
        for item in items:
            key = values.item_key(item)
            owner = partition.anchor_of_item(item)
            if owner == key:
                anchors[key] = item
            elif owner is not None and values.string(item, schema.KIND) == schema.COUNTED:
                lonely_counted.append(owner)
            elif owner is not None:
                entries.setdefault(owner, []).append(item)
            elif (source := partition.activity_partition(item)) is not None:
                activity.append((source, item))
            else:
                orphans.append(key)
        stored_anchors = dict(anchors)
        missing = [k for k in {*entries, *lonely_counted} if k not in stored_anchors]
        stored_anchors |= self.view.get_many(missing)
        flags: dict[tuple[str, str], Flag] = {}

        def flag(anchor_key: schema.Key, extra: schema.Key | None = None) -> None:
            found = partition.source_partition(anchor_key)
            if found is None:
                orphans.append(extra or anchor_key)
                return
            source, pk = found
            before = flags.get((source.name, pk))
            extras = (before.extras if before else frozenset()) | ({extra} if extra else set())
            flags[(source.name, pk)] = Flag(source, pk, frozenset(extras))

        for key in lonely_counted:
            stored = stored_anchors.get(key)
            if stored is None or partition.is_bookkeeping_only(stored):
                flag(key)
        for owner, said in entries.items():
            stored = stored_anchors.get(owner)
            implied = _implied_entries(owner, stored, self.shards)
            for item in said:
                key = values.item_key(item)
                if implied.get(key) != item:
                    flag(owner, key)
        self._check_sources(anchors, flag)
        self._check_activity(activity, flag)
        self._flagged(list(flags.values()))
        if orphans and self.on_orphans:
            self.on_orphans(self, orphans)
        elif orphans:
            self.diff.add([Change("extra", key, None, None) for key in orphans])

    def _check_sources(self, anchors: dict[schema.Key, Item], flag: Callable[[schema.Key], None]) -> None:
        """Each anchor that describes something must still have a source item to follow from."""
        by_source: dict[str, list[tuple[schema.Key, schema.Key]]] = {}
        for key, item in anchors.items():
            if partition.is_bookkeeping_only(item):
                continue
            found = partition.source_partition(key)
            held = found[0].read_state(key, item).source_keys() if found is not None else []
            if found is None or not held:
                flag(key)
                continue
            by_source.setdefault(found[0].name, []).append((key, (found[1], held[0])))
        for name, pairs in by_source.items():
            present = self.tables[name].get_many([source for _key, source in pairs])
            for key, source in pairs:
                if source not in present:
                    flag(key)

    def _check_activity(
        self, activity: list[tuple[SourcePartition, Item]], flag: Callable[[schema.Key, schema.Key], None]
    ) -> None:
        wanted = [source for item in (i for _s, i in activity) if (source := audit_source(item))]
        found = self.tables["shop"].get_many(wanted) if wanted else {}
        for (src, _pk), item in activity:
            source_key = audit_source(item)
            image = found.get(source_key) if source_key else None
            implied = src.free_items(source_key, image, self.shards) if source_key and image else []
            if item not in implied:
                key = values.item_key(item)
                self.on_differs(self, Flag(src, source_key[0] if source_key else key[0], frozenset({key})))

    def _sum_counters(self, page: list[Item]) -> None:
        """What this page's counted items counted, and the sums it holds, added to the walk's totals."""
        counted: list[numbers.Deltas] = []
        seen: dict[schema.Key, tuple[dict[str, Decimal], float | None]] = {}
        for item in page:
            key = values.item_key(item)
            if schema.is_totalled(key):
                seen[key] = (numbers.sum_values(item), values.number(item, schema.CHANGED_AT))
            elif values.string(item, schema.KIND) == schema.COUNTED:
                sums = numbers.read_counted(key, item).sums
                counted.append({k: v for k, v in sums.items() if schema.is_totalled(k)})
        with self._sums:
            numbers.add_into(self.counted, counted)
            self.counters.update(seen)

    def counter_differences(self) -> tuple[list[CounterDifference], int]:
        """Sums that are not the total of what the orders counted, and how many were left out because they
        changed after the walk began."""
        differences, live = [], 0
        since = self.started - COUNTER_CLOCK_MARGIN_S
        candidates = []
        relations = {d.key: d for d in self.relation_differences}  # a customer checked from both sides: once
        for found in relations.values():
            if found.changed_at is not None and found.changed_at >= since:
                live += 1
            else:
                candidates.append(found)
        for key in sorted(set(self.counted) | set(self.counters)):
            expected = {name: value for name, value in self.counted.get(key, {}).items() if value}
            stored, changed_at = self.counters.get(key, ({}, None))
            if {n: v for n, v in stored.items() if v} == expected:
                continue
            if changed_at is not None and changed_at >= since:
                live += 1
                continue
            candidates.append(CounterDifference(key, expected, stored, changed_at))
        # A sum (or buyer relation) scanned before the sync changed it, beside a counted item read after, differs
        # only on the walk's page: read as it is now, it changed after the walk began.
        now = self.view.get_many([d.key for d in candidates])
        for found in candidates:
            changed_at = values.number(now.get(found.key), schema.CHANGED_AT)
            if changed_at is not None and changed_at >= since:
                live += 1
            else:
                differences.append(found)
        return differences, live

    def _scanned(self, counter: str) -> Callable[[int], None]:
        def seen(n: int) -> None:
            self.diff.count(**{counter: n})
            self.on_scan(n)

        return seen

    def run(self) -> Diff:
        started = time.monotonic()
        self.started = time.time()
        self.diff.view_was_empty = self.view.holds_nothing()  # nothing to read back or walk in step 2
        for source in sources():
            in_segments(lambda n, s=source: self.source_segment(s, n), self.segments)  # type: ignore[misc]
        if not self.diff.view_was_empty:
            in_segments(self.view_segment, self.segments)
        differences, live = self.counter_differences()
        self.diff.count(live_counters=live)
        if differences and self.on_counters:
            self.on_counters(self, differences)
        self.diff.seconds = time.monotonic() - started
        return self.diff


def _comparable(key: schema.Key, item: Item | None) -> bool:
    """A stored item that takes part in comparisons: not a stub (which only keeps sequence numbers)."""
    return item is not None and not partition.is_bookkeeping_only(item)


def _guards(source: Source, pk: str, implied: Iterable[schema.Key]) -> list[schema.Key]:
    """The anchors a source partition's items can hang on or do, and their counted items."""
    anchors = list(dict.fromkeys([*source.anchors_in(pk), *implied]))
    return [*anchors, *(schema.counted(key) for key in anchors if source.counts(key))]


def _described(source: Source, stored_anchors: dict[schema.Key, Item], shards: int) -> dict[schema.Key, Item]:
    """The entries stored anchors say exist (so that stale ones are read, and removed by a repair)."""
    found: dict[schema.Key, Item] = {}
    for key, item in stored_anchors.items():
        found |= source.read_state(key, item).implied(shards).entries
    return found


def _implied_entries(owner: schema.Key, stored: Item | None, shards: int) -> dict[schema.Key, Item]:
    source = partition.source_partition(owner)
    if stored is None or source is None:
        return {}
    return source[0].read_state(owner, stored).implied(shards).entries


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


__all__ = ["CounterDifference", "Flag", "Unanchored", "Walk", "walk"]
_ = Any
