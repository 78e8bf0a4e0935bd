"""The verdict on one source partition of an order, as read for the consistency page (``adminview.repair.consistency``
gives the rules and the reads): what its source items imply beside what the view holds, and whether a difference
contradicts what the sync applied (``differs``) or is the sync not having applied newer changes yet (``behind``).

Pure: it judges a ``repair.Reading``, with the partition's source's freshness; nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from adminview.core import numbers, schema, values
from adminview.core.anchor import Bookkeeping
from adminview.reads.sync_freshness import Freshness
from adminview.repair import partition, repair
from adminview.repair.partition import Item
from adminview.repair.view_diff import Change, compare
from shop import keys
from shop.errors import OrderConflict

ViewKey = schema.Key
IN_SYNC, BEHIND, DIFFERS = "in_sync", "behind", "differs"
SEVERITY = {IN_SYNC: 0, BEHIND: 1, DIFFERS: 2}


@dataclass(frozen=True)
class AttributeDifference:
    name: str
    expected: Any  # DynamoDB JSON value; None: absent
    stored: Any


@dataclass(frozen=True)
class Difference:
    """A view item the source implies and the view lacks (``missing``), holds but should not (``extra``), or holds
    otherwise (``differing``); ``contradiction``: no stream record still to come explains it."""

    kind: str
    key: ViewKey
    expected: Item | None
    stored: Item | None
    contradiction: bool = False

    @property
    def attributes(self) -> list[AttributeDifference]:
        """For a differing item, the attributes whose values differ (by name)."""
        if self.expected is None or self.stored is None:
            return []
        names = sorted(set(self.expected) | set(self.stored))
        return [
            AttributeDifference(name, self.expected.get(name), self.stored.get(name))
            for name in names
            if self.expected.get(name) != self.stored.get(name)
        ]


@dataclass(frozen=True)
class SourceMark:
    """A source item of the partition and the sequence number of its last stream record the sync applied (None:
    none yet); ``in_shop`` False for one its table (the shop's, or the returns service's) no longer holds."""

    sk: str
    entity: str | None
    seq: str | None
    in_shop: bool = True


@dataclass(frozen=True)
class Part:
    """One source partition's verdict and what it was drawn from."""

    source: str  # the source's name
    table: str
    pk: str
    verdict: str
    reason: str
    differences: list[Difference]
    expected: dict[ViewKey, Item]  # what its source items imply (bookkeeping left out)
    stored: dict[ViewKey, Item]  # what the view holds of it, as compared (bookkeeping and stubs left out)
    watermarks: list[SourceMark]
    rev: int | None  # its anchor's revision (None: no anchor, or one without)
    applied_at: datetime | None  # when the sync last wrote its anchor
    unsettled: bool = False  # this look may have caught the sync half-way: look again before trusting it
    contradicted: list[ViewKey] = field(default_factory=list)


def unprojectable(order_id: str, exc: ValueError) -> OrderConflict:
    """Source items the view cannot read: the sync cannot apply their records either (dead letters)."""
    return OrderConflict(order_id, None, f"order {order_id}'s source items cannot be projected: {exc}")


def _against_anchors(reading: repair.Reading, shards: int) -> set[ViewKey]:
    """View items of the partition (all but activity entries, which need no anchor), and what its anchors
    counted, that disagree with what its anchors say the sync applied."""
    source, found = reading.source, set[ViewKey]()
    described: dict[ViewKey, Item] = {}
    for key in reading.anchors:
        try:
            implied = source.read_state(key, reading.stored.get(key)).implied(shards)
        except ValueError:  # an anchor that cannot be read back was not written by the sync
            return {key}
        described |= implied.items()
        counted = reading.stored.get(schema.counted(key))
        if counted is not None and numbers.read_counted(schema.counted(key), counted).sums != (implied.sums or {}):
            found.add(schema.counted(key))  # what was counted is not what the anchor's facts add
    stored = {k: i for k, i in partition.compared(reading.stored).items() if partition.kind_of(i) != schema.ACTIVITY}
    return found | {change.key for change in compare(described, stored)}


def _order_facts(item: Item | None) -> Item:
    """A summary's attributes that follow from the shop's order item alone (not from its lines or invoices)."""
    return {name: value for name, value in (item or {}).items() if name not in schema.COLLECTION_KIND.names}


def _against_version(reading: repair.Reading, expected: dict[ViewKey, Item]) -> tuple[ViewKey, str] | None:
    """Every change of an order increments its ``Version``: a summary at the shop's version (or a newer one) with
    other order attributes was not written by the sync (the ``order-status`` backfill adds a ``Status`` without
    one only to orders without a ``Status``, and every order our code writes has both)."""
    order = next((i for i in reading.source_items if values.string(i, keys.ENTITY_TYPE) == "order"), None)
    key = next((k for k in reading.anchors if partition.kind_of(reading.stored.get(k)) == schema.ORDER), None)
    if order is None or key is None:
        return None
    summary = partition.compared(reading.stored).get(key)
    in_shop = values.integer(order, schema.ORDER_KIND.attribute("version"))
    in_view = schema.ORDER_KIND.read(summary).version
    if in_shop is None or in_view is None:
        return None
    if in_view > in_shop:
        return key, f"the summary holds order version {in_view}, the shop's order is at version {in_shop}"
    if in_view == in_shop and _order_facts(expected.get(key)) != _order_facts(summary):
        return key, f"the summary holds the shop's order version {in_shop} but other order attributes"
    return None


def complete_as_of(fresh: Freshness | None) -> datetime | None:
    """The instant before which the sync has applied every change of a source, if its heartbeats prove one (a
    poller's; a Lambda's heartbeats say only when it last applied something)."""
    if fresh is None or fresh.as_of is None or not (fresh.caught_up or fresh.behind_s is not None):
        return None
    return fresh.as_of


def _watermarks(reading: repair.Reading) -> list[SourceMark]:
    book = Bookkeeping.read(next(iter(reading.anchors.values()), None))
    marks = [
        SourceMark(sk, entity, book.seqs.get(sk))
        for item in reading.source_items
        if reading.source.anchor_of(values.item_key(item), item) is not None
        and (entity := values.string(item, keys.ENTITY_TYPE)) is not None
        and (sk := values.string(item, schema.SK)) is not None
    ]
    held = {mark.sk for mark in marks}
    marks += [SourceMark(sk, None, seq, in_shop=False) for sk, seq in book.seqs.items() if sk not in held]
    return sorted(marks, key=lambda m: m.sk)


def _moved(reading: repair.Reading) -> bool:
    """An anchor rewritten (or made or removed) between its two reads."""
    return any(
        Bookkeeping.read(before).rev != Bookkeeping.read(after := reading.anchors_after.get(key)).rev
        or (before is None) != (after is None)
        for key, before in reading.anchors.items()
    )


def judge_partition(
    reading: repair.Reading, *, order_id: str, table: str, read_at: float, fresh: Freshness | None, shards: int
) -> Part:
    """The verdict on one source partition (the rules are ``adminview.repair.consistency``'s docstring's)."""
    try:
        implied = partition.implied_by(reading.source, reading.pk, reading.source_items, shards)
    except ValueError as exc:
        raise unprojectable(order_id, exc) from exc
    expected, stored = implied.items(), partition.compared(reading.stored)
    book = Bookkeeping.read(next(iter(reading.anchors.values()), None))
    changes = compare(expected, stored)
    sums = implied.counted()
    for key in (schema.counted(key) for key in reading.anchors if reading.source.counts(key)):
        held, added = reading.stored.get(key), sums.get(key, {})  # what the anchor added to the sums, and should
        if numbers.read_counted(key, held).sums != added:
            changes.append(Change("differing", key, numbers.counted_item(key, added, 0), held))
    verdict, reason, unsettled, against = _why(reading, changes, expected, read_at, fresh, shards)
    return Part(
        source=reading.source.name,
        table=table,
        pk=reading.pk,
        verdict=verdict,
        reason=reason,
        differences=sorted(
            (Difference(c.kind, c.key, c.expected, c.actual, c.key in against) for c in changes), key=lambda d: d.key
        ),
        expected=expected,
        stored=stored,
        watermarks=_watermarks(reading),
        rev=book.rev,
        applied_at=datetime.fromtimestamp(book.applied_at, UTC) if book.applied_at is not None else None,
        unsettled=unsettled,
        contradicted=sorted(against),
    )


def _why(
    reading: repair.Reading,
    changes: list[Change],
    expected: dict[ViewKey, Item],
    read_at: float,
    fresh: Freshness | None,
    shards: int,
) -> tuple[str, str, bool, set[ViewKey]]:
    """The verdict, its reason in words, whether to look again, and the items contradicting what the sync applied."""
    name = reading.source.name
    if not changes:
        return IN_SYNC, f"The view holds exactly the items the {name} partition {reading.pk} implies.", False, set()
    if _moved(reading):
        reason = "Its view items were written while they were read (by the sync, a rebuild or a repair)."
        return BEHIND, reason, True, set()
    contradicted = _against_anchors(reading, shards)
    if contradicted:
        shown = ", ".join(f"{pk} {sk}" for pk, sk in sorted(contradicted)[:3])
        return DIFFERS, f"View items disagree with what the anchor says the sync applied ({shown}).", True, contradicted
    if version := _against_version(reading, expected):
        key, why = version
        return DIFFERS, f"The view contradicts the shop: {why}.", False, {key}
    rewritten = {c.key for c in changes if c.kind == "differing" and partition.kind_of(c.actual) == schema.ACTIVITY}
    if rewritten:
        reason = "An activity entry differs from its audit entry, and audit entries never change."
        return DIFFERS, reason, False, rewritten
    complete = complete_as_of(fresh)
    if complete is not None and complete.timestamp() >= read_at:
        reason = (
            f"The sync had applied every change of the {name} table made before {complete:%H:%M:%S} UTC, after it "
            "was read, yet the view differs."
        )
        return DIFFERS, reason, False, {c.key for c in changes}
    reason = (
        f"The view agrees with what the sync has applied; the {name} table has changes the sync has not applied yet."
    )
    return BEHIND, reason, False, set()
