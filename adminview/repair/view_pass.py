"""The walk's second pass (``docs/repair.md``, step 2): each view item must still follow from a source partition,
and each sum be the total of what the counted items say (each buyer relation, of what its customer's orders
counted); a sum that changed after the walk began is left for the next walk, so the check is exact under live
traffic. Memory: a Scan page and its look-ups per thread, one entry per sum item, the buyer relations of the last
``RELATIONS_HELD`` customers checked."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from adminview.core import numbers, schema, values
from adminview.core.sources import Source, free_item_source
from adminview.repair import partition
from adminview.repair.flags import CounterDifference, Flag, Scope
from adminview.repair.partition import Item
from adminview.repair.view_diff import Change
from shop import keys

COUNTER_CLOCK_MARGIN_S = 2.0  # how far writers' clocks may disagree (NTP keeps hosts far closer)
RELATIONS_HELD = 10_000  # customers whose buyer relations the view pass keeps as read


@dataclass
class ViewPass:
    scope: Scope
    started: float  # wall clock as the walk began (a sum changed since is left for the next walk)
    flagged: Callable[[list[Flag]], None]
    differs: Callable[[Flag], None]
    orphaned: Callable[[list[schema.Key]], None] | None
    scanned: Callable[[int], None]
    counted: numbers.Deltas = field(default_factory=dict)  # the counted items' sums, summed per sum item
    counters: dict[schema.Key, tuple[dict[str, Decimal], float | None]] = field(default_factory=dict)
    relation_differences: list[CounterDifference] = field(default_factory=list)
    relations_read: OrderedDict[str, dict[schema.Key, Decimal]] = field(default_factory=OrderedDict)
    _sums: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def segment(self, segment: int) -> None:
        """Page by page (a customer's partition grows with their orders: it is never held whole)."""
        checked: str | None = None  # the last customer checked: a partition's pages come one after another
        for page in self.scope.view.scan_pages(segment, self.scope.segments, page_size=self.scope.page_size):
            self.scanned(len(page))
            self._sum_counters(page)
            relations = [i for i in page if values.item_key(i)[0].startswith(schema.BUYERS_PREFIX)]
            self._check_stored([i for i in page if not schema.is_sum(values.item_key(i))])
            customers = {cid for i in page if (cid := keys.without_prefix(values.item_key(i)[0], keys.CUSTOMER))}
            self._check_relations(customers - {checked}, relations)
            last = keys.without_prefix(values.item_key(page[-1])[0], keys.CUSTOMER) if page else None
            checked = last or checked

    # --- buyer relations: each customer's, from the counted items of their orders ----------------------------

    def _check_relations(self, customers: set[str], relations: list[Item]) -> None:
        """Each customer whose partition or relations this batch holds: the relations their orders' counted items
        imply must be stored, and only those, so the walk never holds every relation at once."""
        owners = customers | {keys.without_prefix(values.item_key(r)[1], keys.CUSTOMER) or "" for r in relations}
        expected = {key: value for c in sorted(owners) for key, value in self._relations_held(c).items()}
        held = {values.item_key(r): r for r in relations}
        wanted = [key for key in expected if key not in held]
        held |= self.scope.view.get_many(wanted)
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
        """``_relations_of``, read once per customer among the last ``RELATIONS_HELD`` (a customer comes up again on
        the page of each product they bought); one changed since was changed after the walk began, so its ``At``
        leaves it for the next walk."""
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
        """What the customer's orders' counted items imply for their buyer relations, read page by page."""
        found: dict[schema.Key, Decimal] = {}
        for page in self.scope.view.pages_of(
            keys.customer(customer_id), schema.CUSTOMER_ORDER_PREFIX, page_size=self.scope.page_size
        ):
            orders = [oid for item in page if (oid := values.string(item, schema.ORDER_ID))]
            counted = [schema.counted(schema.order_anchor(oid)) for oid in orders]
            for key, item in self.scope.view.get_many(counted).items():
                for relation, figures in numbers.read_counted(key, item).sums.items():
                    if relation[0].startswith(schema.BUYERS_PREFIX) and relation[1] == keys.customer(customer_id):
                        found[relation] = found.get(relation, Decimal(0)) + figures.get(schema.ORDERS, Decimal(0))
        return found

    # --- every other item: does it still follow from a source partition? -------------------------------------

    def _check_stored(self, items: list[Item]) -> None:
        anchors: dict[schema.Key, Item] = {}
        entries: dict[schema.Key, list[Item]] = {}  # anchor key -> entries said to follow from it
        activity: list[tuple[Source, schema.Key, Item]] = []  # a free item's source, its source item, the item
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
            elif (found := free_item_source(item)) is not None:
                activity.append((*found, item))
            else:
                orphans.append(key)
        stored_anchors = dict(anchors)
        missing = [k for k in {*entries, *lonely_counted} if k not in stored_anchors]
        stored_anchors |= self.scope.view.get_many(missing)
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
            implied = _implied_entries(owner, stored, self.scope.shards)
            for item in said:
                key = values.item_key(item)
                if implied.get(key) != item:
                    flag(owner, key)
        self._check_sources(anchors, flag)
        self._check_activity(activity)
        self.flagged(list(flags.values()))
        if orphans and self.orphaned:
            self.orphaned(orphans)
        elif orphans:
            self.scope.diff.add([Change("extra", key, None, None) for key in orphans])

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
            present = self.scope.tables[name].get_many([source for _key, source in pairs])
            for key, source in pairs:
                if source not in present:
                    flag(key)

    def _check_activity(self, activity: list[tuple[Source, schema.Key, Item]]) -> None:
        """Each activity entry must be what its audit entry implies: one BatchGetItem per source table."""
        by_source: dict[str, list[tuple[Source, schema.Key, Item]]] = {}
        for src, source_key, item in activity:
            by_source.setdefault(src.name, []).append((src, source_key, item))
        for name, found in by_source.items():
            audits = self.scope.tables[name].get_many([source_key for _s, source_key, _i in found])
            for src, source_key, item in found:
                image = audits.get(source_key)
                implied = src.free_items(source_key, image, self.scope.shards) if image else []
                if item not in implied:
                    self.differs(Flag(src, source_key[0], frozenset({values.item_key(item)})))

    # --- the sums ------------------------------------------------------------------------------------------

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
        """Sums that are not the total of what was counted, and how many changed after the walk began."""
        since = self.started - COUNTER_CLOCK_MARGIN_S

        def live(changed_at: float | None) -> bool:
            return changed_at is not None and changed_at >= since

        found = list({d.key: d for d in self.relation_differences}.values())  # a customer checked from both sides
        for key in sorted(set(self.counted) | set(self.counters)):
            expected = {name: value for name, value in self.counted.get(key, {}).items() if value}
            stored, changed_at = self.counters.get(key, ({}, None))
            if {n: v for n, v in stored.items() if v} != expected:
                found.append(CounterDifference(key, expected, stored, changed_at))
        # A sum (or buyer relation) scanned before the sync changed it, beside a counted item read after, differs
        # only on the walk's page: read as it is now, it changed after the walk began.
        candidates = [d for d in found if not live(d.changed_at)]
        now = self.scope.view.get_many([d.key for d in candidates])
        differences = [d for d in candidates if not live(values.number(now.get(d.key), schema.CHANGED_AT))]
        return differences, len(found) - len(differences)


def _implied_entries(owner: schema.Key, stored: Item | None, shards: int) -> dict[schema.Key, Item]:
    source = partition.source_partition(owner)
    if stored is None or source is None:
        return {}
    return source[0].read_state(owner, stored).implied(shards).entries
