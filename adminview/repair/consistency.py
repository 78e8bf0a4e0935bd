"""One order's consistency: the view items its source partitions (``read_order``) imply beside those the view
holds, a verdict on why they differ (``RULE``; ``adminview.repair.verdict``), and a repair of that order's view
items with the staff member's audit entry in the same transaction, safe under a running sync (``docs/repair.md``,
"One order at a time"). Nothing here knows Django.

The reads come in the order that keeps them truthful beside the live sync: the order's returns, every partition's
anchors, the partitions, the view items they imply with the anchors again, the heartbeats; a look that may have
caught the sync half-way is taken once more after ``SETTLE_S``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from adminview.core import guard, schema, values
from adminview.core.sources import sources
from adminview.core.sources.shared import IndexLookup
from adminview.core.sources.shop import SOURCE, activity_items
from adminview.reads import sync_freshness
from adminview.reads.sync_freshness import Freshness, least_fresh
from adminview.repair import partition, repair
from adminview.repair.partition import Item
from adminview.repair.table_walk import Table, source_table, view_table
from adminview.repair.verdict import BEHIND as BEHIND  # the verdicts and a part are this module's words too
from adminview.repair.verdict import DIFFERS as DIFFERS
from adminview.repair.verdict import IN_SYNC as IN_SYNC
from adminview.repair.verdict import SEVERITY, Difference, SourceMark, judge_partition, unprojectable
from adminview.repair.verdict import Part as Part
from adminview.repair.view_diff import Change
from dynamo import backoff, ddb_json, item_codec
from dynamo.paging import raw_items
from dynamo.transactions import MAX_ITEMS
from shop import audit, keys
from shop.audit import Actor
from shop.errors import NotFound, OrderConflict
from shop.models import AuditEntry

ViewKey = schema.Key
REPAIR_ACTION = "repair-view"
SETTLE_S = 0.25  # far longer than the sync takes from its view items to its anchor
DETAIL_CHARS = 300
RULE = (
    "A difference is “differs” when the view contradicts what the sync itself applied (an anchor, the order's "
    "version, an audit entry) or when the sync had applied every change made before the source table was read; any "
    "other difference is the sync not having applied the source's newer changes yet: “behind”. The order's verdict "
    "is the worst of its source partitions' (the shop's order, its refunds, each of its returns)."
)


@dataclass(frozen=True)
class Look:
    """One read of the order's source partitions, their view items and the sync's position, in the module's order."""

    order_id: str
    reading: repair.Reading  # the shop partition: the anchor and counted item, then its items, then the view items
    read_at: float  # when the sources' reads ended (epoch seconds)
    freshness: Freshness | None  # the least fresh of the sources read; None: the sync's state could not be read
    others: list[repair.Reading] = field(default_factory=list)  # the returns table's: refunds, then each return
    by_source: dict[str, Freshness] | None = None  # each source's freshness (None: could not be read)

    @property
    def readings(self) -> list[repair.Reading]:
        return [self.reading, *self.others]

    @property
    def anchor_after(self) -> Item | None:
        return self.reading.anchors_after.get(schema.order_anchor(self.order_id))


@dataclass(frozen=True)
class Report:
    """The order's verdict: the worst of its source partitions' (``parts``, the shop's first)."""

    order_id: str
    parts: list[Part]
    read_at: datetime
    freshness: Freshness | None
    by_source: dict[str, Freshness] | None = None

    @property
    def worst(self) -> Part:
        return max(self.parts, key=lambda p: SEVERITY[p.verdict])  # the first of the worst: the shop's, if it is

    @property
    def verdict(self) -> str:
        return self.worst.verdict

    @property
    def reason(self) -> str:
        if self.verdict == IN_SYNC:
            return "The view holds exactly the items the order's source items imply."
        return self.worst.reason

    @property
    def differences(self) -> list[Difference]:
        return [d for p in self.parts for d in p.differences]

    @property
    def expected(self) -> dict[ViewKey, Item]:
        return {k: i for p in self.parts for k, i in p.expected.items()}

    @property
    def stored(self) -> dict[ViewKey, Item]:
        return {k: i for p in self.parts for k, i in p.stored.items()}

    @property
    def watermarks(self) -> list[SourceMark]:
        """The shop items of the order's collection (the order's anchor's)."""
        return self.parts[0].watermarks

    @property
    def rev(self) -> int | None:
        return self.parts[0].rev

    @property
    def applied_at(self) -> datetime | None:
        return self.parts[0].applied_at

    @property
    def unsettled(self) -> bool:
        return any(p.unsettled for p in self.parts)

    @property
    def contradicted(self) -> list[ViewKey]:
        return sorted({k for p in self.parts for k in p.contradicted})


# --- reading ------------------------------------------------------------------------------------------------


def _looked_up(table: Table, lookup: IndexLookup) -> list[str]:
    """The partition keys an index names (one Query, keys only)."""
    found = raw_items(
        table.client,
        "query",
        TableName=table.name,
        IndexName=lookup.index,
        KeyConditionExpression="#at = :value",
        ProjectionExpression="#pk",
        ExpressionAttributeNames={"#at": lookup.attribute, "#pk": schema.PK},
        ExpressionAttributeValues={":value": ddb_json.s(lookup.value)},
    )
    pks = (values.string(item_codec.decode(item), schema.PK) for item in found)
    return sorted({pk for pk in pks if pk is not None and lookup.names_partition(pk)})


def read_order(view: Table, order_id: str) -> list[repair.Reading]:
    """Every source partition the order's view items follow from (``Source.order_partitions``), read in the
    protocol's order (``repair.read_partitions``). The index Queries come first; a GSI is eventually consistent, so
    a partition written a moment ago may be left out of one look (the next one has it)."""
    oid = keys.bare(order_id, keys.ORDER)
    wanted: list[repair.Wanted] = []
    for source in sources():
        table, where = source_table(source), source.order_partitions(oid)
        try:
            more = _looked_up(table, where.lookup) if where.lookup is not None else []
        except table.client.exceptions.ResourceNotFoundException:
            continue
        wanted += [repair.Wanted(table, source, pk) for pk in (*where.pks, *more)]
    return repair.read_partitions(view, wanted)


def _freshness() -> dict[str, Freshness] | None:
    try:
        return sync_freshness.freshness_by_source(sync_freshness.heartbeats())
    except ClientError as exc:  # no sync table: nothing can be proven about the sync
        if exc.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
            raise
        return None


def read(order_id: str, *, clock: Callable[[], float] = time.time) -> Look:
    oid = keys.bare(order_id, keys.ORDER)
    shop, *others = read_order(view_table(), oid)
    read_at = clock()
    by_source = _freshness()
    names = {r.source.name for r in (shop, *others)}
    fresh = None if by_source is None else least_fresh(f for name, f in by_source.items() if name in names)
    return Look(oid, shop, read_at, fresh, others, by_source)


# --- judging (pure) -----------------------------------------------------------------------------------------


def judge(seen: Look, shards: int) -> Report:
    parts = [
        judge_partition(
            reading,
            order_id=seen.order_id,
            table=reading.source.table_name(),
            read_at=seen.read_at,
            fresh=None if seen.by_source is None else seen.by_source.get(reading.source.name),
            shards=shards,
        )
        for reading in seen.readings
    ]
    return Report(seen.order_id, parts, datetime.fromtimestamp(seen.read_at, UTC), seen.freshness, seen.by_source)


def order_consistency(*, order_id: str, sleep: Callable[[float], None] = time.sleep) -> Report:
    """The order's report: one look, and a second after ``SETTLE_S`` when the first may have caught the sync
    half-way (its verdict then stands). ``NotFound`` when no table holds anything of the order."""
    first = read(order_id)
    if not any(r.source_items or r.stored for r in first.readings):
        raise NotFound("order", first.order_id)
    shards = schema.list_shards()
    report = judge(first, shards)
    if not report.unsettled:
        return report
    sleep(SETTLE_S)
    return judge(read(order_id), shards)


# --- repair -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Repaired:
    """What a repair rewrote (empty: nothing differed, nothing was written) and its audit entry."""

    order_id: str
    changes: list[Change]
    entry: AuditEntry | None
    attempts: int


ITEM_NAMES = {
    schema.ORDER: "summary",
    schema.COLLECTION: "summary",
    schema.COUNTED: "counted numbers",
    schema.CUSTOMER_ORDER: "customer's order entry",
    schema.PAYMENT: "payment",
    schema.CATEGORY_ORDER: "category entry",
    schema.ACTIVITY: "activity entry",
    schema.RETURN: "return",
    schema.CUSTOMER_RETURN: "customer's return entry",
    schema.REFUNDS: "refunds",
}


def describe(changes: list[Change]) -> str:
    """A short account of a repair for its audit entry (staff read it on the activity page: items by what they
    are, not by key): each rewritten item, and a differing one's attributes."""
    parts = []
    for change in sorted(changes, key=lambda c: c.key):
        kind = partition.kind_of(change.expected) or partition.kind_of(change.actual)
        text = f"{change.kind} {ITEM_NAMES.get(kind or '', change.key[1])}"
        names = [a.name for a in Difference(change.kind, change.key, change.expected, change.actual).attributes]
        if names:
            text += " (" + ", ".join(names) + ")"
        parts.append(text)
    line = f"rewrote {len(changes)} view item{'s' if len(changes) != 1 else ''}: " + "; ".join(parts)
    return line if len(line) <= DETAIL_CHARS else line[: DETAIL_CHARS - 1] + "…"


def _actions(plans: list[repair.Plan], entry: AuditEntry, view: Table, shards: int) -> list[dict[str, Any]]:
    """The plans' writes as a rebuild commits them (every partition's guarded writes first), with the audit entry
    and the activity entries it implies; all plain (``Table.transact`` encodes them)."""
    image = item_codec.decode(entry.serialize())
    absent = guard.unchanged(stored=False, rev=None)  # the audit entry is new
    audited = [{"Put": {"TableName": source_table(SOURCE).name, "Item": image, **absent}}]
    activity = activity_items((entry.pk, entry.sk), image, shards)
    audited += [{"Put": {"TableName": view.name, "Item": item}} for item in activity]
    planned = repair.transaction_actions(view.name, plans)
    guarded = sum(len(p.guarded) for p in plans)
    return [*planned[:guarded], *audited, *planned[guarded:]]


def _commit(view: Table, actions: list[dict[str, Any]]) -> None:
    """One TransactWriteItems over the tables (tests replace this to race the sync against it)."""
    repair.commit(view, actions)


def _plans(oid: str, readings: list[repair.Reading], view: Table, shards: int) -> list[repair.Plan]:
    try:
        plans = [repair.plan_repair(reading, view.name, shards) for reading in readings]
    except ValueError as exc:
        raise unprojectable(oid, exc) from exc
    return [p for p in plans if p.changes]


def order_repair(*, order_id: str, actor: Actor, sleep: Callable[[float], None] = time.sleep) -> Repaired:
    """Rewrite the order's view items from its source partitions, with ``actor``'s audit entry, in one transaction
    conditioned on each anchor's ``Rev`` as read, read again when the sync wrote one meanwhile. ``OrderConflict``
    when it kept doing so (or for one transaction too large), ``NotFound`` for an order no table holds."""
    oid = keys.bare(order_id, keys.ORDER)
    shards, view = schema.list_shards(), view_table()
    policy = backoff.ORDER_REPAIRS
    for pauses in policy.sends(sleep):
        readings = read_order(view, oid)
        if not any(r.source_items or r.stored for r in readings):
            raise NotFound("order", oid)
        plans = _plans(oid, readings, view, shards)
        if not plans:
            return Repaired(oid, [], None, pauses.taken + 1)
        changes = [c for p in plans for c in p.changes]
        entry = audit.entry(actor, action=REPAIR_ACTION, order_id=oid, detail=describe(changes))
        actions = _actions(plans, entry, view, shards)
        if len(actions) > MAX_ITEMS:
            too_many = f"order {oid} needs {len(actions)} writes, more than one transaction holds ({MAX_ITEMS})"
            raise OrderConflict(oid, None, too_many + ": run rebuild_adminview")
        try:
            _commit(view, actions)
        except repair.Contended:
            continue
        return Repaired(oid, changes, entry, pauses.taken + 1)
    raced = f"order {oid} keeps changing: the sync wrote it during each of {policy.attempts} attempts to repair it"
    raise OrderConflict(oid, None, raced + ". Nothing was written; try again in a moment.")
