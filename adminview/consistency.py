"""One order's consistency: the view items its shop items imply beside those the view holds, a verdict on why
they differ, and a repair of that order's view items from the shop table, safe under a running sync.

Reads, a constant number whatever the tables hold (never a Scan), in the order that keeps both truthful next to
the live sync: the order's anchor and counted item (consistent BatchGetItem), the shop partition ``o#<oid>``
(one consistent Query), the view items either implies and the anchor once more (consistent BatchGetItem), the
sync's heartbeats (one Query).

The verdict, when the view differs from what the shop implies:

- ``differs``: the view contradicts what the sync itself applied, which no stream record still to come can
  explain. A view item disagrees with what the order's anchor (the record of what the sync applied) implies;
  or the summary holds the shop's order ``Version`` (every change of an order increments it) or a newer one,
  yet other order attributes; or an activity item differs from its audit entry (audit entries never change);
  or the heartbeats say the sync had applied every change made before the shop was read, yet the view differs.
- ``behind``: otherwise: the view agrees with what the sync has applied, and the shop has changes it has not
  applied yet.

The sync writes an order's view items before its anchor, and the view may move while it is read: a look that
finds a view item contradicting the anchor, or the anchor rewritten between its two reads, is taken once more
after ``SETTLE_S`` and the second look decides.

The repair follows ``adminview.repair``'s protocol (anchor, then shop, then view; one transaction conditioned on
the anchor's ``Rev`` and the counted item's), so it never writes a state older than what the sync has applied;
the staff member's audit entry (shop table) and the activity entries it implies (view table) go in the same
TransactWriteItems, so the repair is in ``/activity/`` exactly when it happened. Nothing here knows Django.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from adminview import numbers, partition, repair, schema, sync_status
from adminview.anchor import Bookkeeping
from adminview.partition import Item
from adminview.sources.shop import SOURCE, activity_items
from adminview.sync_status import Freshness
from adminview.table_walk import Table, source_table, view_table
from adminview.view_diff import Change, compare
from dynamo import ddb_json
from dynamo.backoff import full_jitter
from dynamo.transactions import MAX_ITEMS
from shop import audit, keys
from shop.audit import Actor
from shop.errors import NotFound, OrderConflict
from shop.models import AuditEntry

ViewKey = schema.Key
IN_SYNC, BEHIND, DIFFERS = "in_sync", "behind", "differs"
REPAIR_ACTION = "repair-view"
SETTLE_S = 0.25  # far longer than the sync takes from its view items to its anchor
REPAIR_ATTEMPTS = 4
DETAIL_CHARS = 300
RULE = (
    "A difference is “differs” when the view contradicts what the sync itself applied (the order's anchor, its "
    "version, an audit entry) or when the sync had applied every change made before the shop was read; any other "
    "difference is the sync not having applied the shop's newer changes yet: “behind”."
)


@dataclass(frozen=True)
class AttributeDifference:
    name: str
    expected: Any  # DynamoDB JSON value; None: absent
    stored: Any


@dataclass(frozen=True)
class Difference:
    """A view item the shop implies and the view lacks (``missing``), holds but should not (``extra``), or holds
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
    """A shop item of the order's collection and the sequence number of its last stream record the sync applied
    (None: none yet); ``in_shop`` False for one the shop no longer holds."""

    sk: str
    entity: str | None
    seq: str | None
    in_shop: bool = True


@dataclass(frozen=True)
class Look:
    """One read of both tables and of the sync's position, in the order the module docstring gives."""

    order_id: str
    reading: repair.Reading  # the anchor and counted item, then the shop partition, then the view items
    read_at: float  # when the shop read ended (epoch seconds)
    freshness: Freshness | None  # None: the sync's state could not be read

    @property
    def shop(self) -> list[Item]:
        return self.reading.source_items

    @property
    def anchor_before(self) -> Item | None:
        return self.reading.anchors.get(schema.order_anchor(self.order_id))

    @property
    def anchor_after(self) -> Item | None:
        return self.reading.anchors_after.get(schema.order_anchor(self.order_id))


@dataclass(frozen=True)
class Report:
    order_id: str
    verdict: str
    reason: str
    differences: list[Difference]
    expected: dict[ViewKey, Item]  # what the shop's items imply (bookkeeping left out)
    stored: dict[ViewKey, Item]  # what the view holds, as compared (bookkeeping and stubs left out)
    watermarks: list[SourceMark]
    rev: int | None  # the anchor's revision (None: no anchor, or one without)
    applied_at: datetime | None  # when the sync last wrote the anchor
    read_at: datetime
    freshness: Freshness | None
    unsettled: bool = False  # this look may have caught the sync half-way: look again before trusting it
    contradicted: list[ViewKey] = field(default_factory=list)


# --- reading ------------------------------------------------------------------------------------------------


def _freshness() -> Freshness | None:
    try:
        return sync_status.freshness()
    except ClientError as exc:  # no sync table: nothing can be proven about the sync
        if exc.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
            raise
        return None


def _tables() -> tuple[Table, Table]:
    return view_table(), source_table(SOURCE)


def read(order_id: str, *, clock: Callable[[], float] = time.time) -> Look:
    """Read the order's anchor, the shop partition, the view items either implies (the anchor once more among
    them), then the heartbeats."""
    oid = keys.bare(order_id, keys.ORDER)
    view, shop = _tables()
    reading = repair.read_partition(view, shop, SOURCE, keys.order(oid))
    return Look(oid, reading, clock(), _freshness())


# --- judging (pure) -----------------------------------------------------------------------------------------


def _unprojectable(order_id: str, exc: ValueError) -> OrderConflict:
    """Shop items the view cannot read: the sync cannot apply their records either (dead letters)."""
    return OrderConflict(order_id, None, f"order {order_id}'s shop items cannot be projected: {exc}")


def _kind(item: Item | None) -> str | None:
    return ddb_json.string(item, schema.KIND)


def _expected(seen: Look, shards: int) -> tuple[dict[ViewKey, Item], dict[ViewKey, numbers.Sums]]:
    try:
        implied = partition.implied_by(SOURCE, keys.order(seen.order_id), seen.shop, shards)
    except ValueError as exc:
        raise _unprojectable(seen.order_id, exc) from exc
    return implied.items(), implied.counted()


def _stored(seen: Look) -> dict[ViewKey, Item]:
    return {
        key: partition.comparable(item)
        for key, item in seen.reading.stored.items()
        if not partition.is_bookkeeping_only(item) and _kind(item) != schema.COUNTED
    }


def _against_anchor(seen: Look, shards: int) -> set[ViewKey]:
    """View items of the order (all but activity entries, which need no anchor), and what it counted, that
    disagree with what the order's anchor says the sync applied."""
    key = schema.order_anchor(seen.order_id)
    anchor = seen.reading.stored.get(key)
    try:
        state = SOURCE.read_state(key, anchor)
        described = state.implied(shards)
    except ValueError:  # an anchor that cannot be read back was not written by the sync
        return {key}
    stored = {k: i for k, i in _stored(seen).items() if _kind(i) != schema.ACTIVITY}
    found = {change.key for change in compare(described.items(), stored)}
    counted = seen.reading.stored.get(schema.counted(key))
    if counted is not None and numbers.read_counted(schema.counted(key), counted).sums != (described.sums or {}):
        found.add(schema.counted(key))  # what was counted is not what the anchor's facts add
    return found


def _order_facts(item: Item | None) -> Item:
    """A summary's attributes that follow from the shop's order item alone (not from its lines or invoices)."""
    return {name: value for name, value in (item or {}).items() if name not in ("Lines", "Invoices", "Shipments")}


def _against_version(seen: Look, expected: dict[ViewKey, Item], stored: Item | None) -> str | None:
    """Every change of an order increments its ``Version``: a summary at the shop's version (or a newer one) with
    other order attributes was not written by the sync. (The ``order-status`` backfill adds a ``Status`` without
    one, but only to orders without a ``Status``, and every order our code writes has both.)"""
    key = schema.order_anchor(seen.order_id)
    order = next((i for i in seen.shop if ddb_json.string(i, "EntityType") == "order"), None)
    if order is None or _kind(stored) != schema.ORDER:
        return None
    in_shop, in_view = ddb_json.integer(order, "Version"), ddb_json.integer(stored, "Version")
    if in_shop is None or in_view is None:
        return None
    if in_view > in_shop:
        return f"the summary holds order version {in_view}, the shop's order is at version {in_shop}"
    if in_view == in_shop and _order_facts(expected.get(key)) != _order_facts(stored):
        return f"the summary holds the shop's order version {in_shop} but other order attributes"
    return None


def _complete_as_of(fresh: Freshness | None) -> datetime | None:
    """The instant before which the sync has applied every change, if its heartbeats prove one (a poller's; a
    Lambda's heartbeats say only when it last applied something)."""
    if fresh is None or fresh.as_of is None or not (fresh.caught_up or fresh.behind_s is not None):
        return None
    return fresh.as_of


def _watermarks(seen: Look) -> list[SourceMark]:
    book = Bookkeeping.read(seen.anchor_before)
    marks = [
        SourceMark(sk, entity, book.seqs.get(sk))
        for item in seen.shop
        if SOURCE.anchor_of(ddb_json.item_key(item), item) is not None
        and (entity := ddb_json.string(item, "EntityType")) is not None
        and (sk := ddb_json.string(item, "SK")) is not None
    ]
    held = {mark.sk for mark in marks}
    marks += [SourceMark(sk, None, seq, in_shop=False) for sk, seq in book.seqs.items() if sk not in held]
    return sorted(marks, key=lambda m: m.sk)


def judge(seen: Look, shards: int) -> Report:
    """The verdict on one look (the rules are the module docstring's)."""
    key = schema.order_anchor(seen.order_id)
    expected, counted = _expected(seen, shards)
    stored = _stored(seen)
    book = Bookkeeping.read(seen.reading.stored.get(key))
    report = Report(
        order_id=seen.order_id,
        verdict=IN_SYNC,
        reason="The view holds exactly the items the shop's items imply.",
        differences=[],
        expected=expected,
        stored=stored,
        watermarks=_watermarks(seen),
        rev=book.rev,
        applied_at=datetime.fromtimestamp(book.applied_at, UTC) if book.applied_at is not None else None,
        read_at=datetime.fromtimestamp(seen.read_at, UTC),
        freshness=seen.freshness,
    )
    changes = compare(expected, stored)
    counted_key = schema.counted(key)
    sums = counted.get(counted_key, {})
    held = seen.reading.stored.get(counted_key)
    if numbers.read_counted(counted_key, held).sums != sums:  # what the order added to the sums
        changes.append(Change("differing", counted_key, numbers.counted_item(counted_key, sums, 0), held))
    if not changes:
        return report
    moved = Bookkeeping.read(seen.anchor_before).rev != Bookkeeping.read(seen.anchor_after).rev or (
        seen.anchor_before is None
    ) != (seen.anchor_after is None)
    if moved:
        reason = "The order's view items were written while they were read (by the sync, a rebuild or a repair)."
        return _verdict(report, changes, BEHIND, reason, True)
    contradicted = _against_anchor(seen, shards)
    if contradicted:
        shown = ", ".join(f"{pk} {sk}" for pk, sk in sorted(contradicted)[:3])
        reason = f"View items disagree with what the order's anchor says the sync applied ({shown})."
        return _verdict(report, changes, DIFFERS, reason, True, contradicted)
    version = _against_version(seen, expected, stored.get(key))
    if version:
        return _verdict(report, changes, DIFFERS, f"The view contradicts the shop: {version}.", False, {key})
    rewritten = {c.key for c in changes if c.kind == "differing" and _kind(c.actual) == schema.ACTIVITY}
    if rewritten:
        reason = "An activity entry differs from its audit entry, and audit entries never change."
        return _verdict(report, changes, DIFFERS, reason, False, rewritten)
    complete = _complete_as_of(seen.freshness)
    if complete is not None and complete.timestamp() >= seen.read_at:
        reason = (
            f"The sync had applied every change made before {complete:%H:%M:%S} UTC, after the shop was read, "
            "yet the view differs."
        )
        return _verdict(report, changes, DIFFERS, reason, False, {c.key for c in changes})
    reason = "The view agrees with what the sync has applied; the shop has changes the sync has not applied yet."
    return _verdict(report, changes, BEHIND, reason, False)


def _verdict(
    report: Report,
    changes: list[Change],
    verdict: str,
    reason: str,
    unsettled: bool,
    contradicted: set[ViewKey] | None = None,
) -> Report:
    against = contradicted or set()
    differences = [Difference(c.kind, c.key, c.expected, c.actual, c.key in against) for c in changes]
    differences.sort(key=lambda d: d.key)
    return replace(
        report,
        verdict=verdict,
        reason=reason,
        differences=differences,
        unsettled=unsettled,
        contradicted=sorted(against),
    )


def order_consistency(*, order_id: str, sleep: Callable[[float], None] = time.sleep) -> Report:
    """The order's report: one look, and a second after ``SETTLE_S`` when the first may have caught the sync
    half-way (its verdict then stands). ``NotFound`` when neither table holds anything of the order."""
    first = read(order_id)
    if not first.shop and not first.reading.stored:
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
}


def describe(changes: list[Change]) -> str:
    """A short account of a repair for its audit entry (staff read it on the activity page: items by what they
    are, not by key): each rewritten item, and a differing one's attributes."""
    parts = []
    for change in sorted(changes, key=lambda c: c.key):
        kind = _kind(change.expected) or _kind(change.actual)
        text = f"{change.kind} {ITEM_NAMES.get(kind or '', change.key[1])}"
        names = [a.name for a in Difference(change.kind, change.key, change.expected, change.actual).attributes]
        if names:
            text += " (" + ", ".join(names) + ")"
        parts.append(text)
    line = f"rewrote {len(changes)} view item{'s' if len(changes) != 1 else ''}: " + "; ".join(parts)
    return line if len(line) <= DETAIL_CHARS else line[: DETAIL_CHARS - 1] + "…"


def _actions(found: repair.Plan, entry: AuditEntry, shop: Table, view: Table, shards: int) -> list[dict[str, Any]]:
    """The plan's writes as a rebuild commits them (the guarded writes first), with the audit entry and the
    activity entries it implies."""
    image = entry.serialize()
    audited = [
        {
            "Put": {
                "TableName": shop.name,
                "Item": image,
                "ConditionExpression": "attribute_not_exists(#pk)",
                "ExpressionAttributeNames": {"#pk": "PK"},
            }
        },
        *(
            {"Put": {"TableName": view.name, "Item": item}}
            for item in activity_items((entry.pk, entry.sk), image, shards)
        ),
    ]
    planned = repair.transaction_actions(view.name, [found])
    guarded = len(found.guarded)
    return [*planned[:guarded], *audited, *planned[guarded:]]


def _commit(view: Table, actions: list[dict[str, Any]]) -> None:
    """One TransactWriteItems over both tables (tests replace this to race the sync against it)."""
    repair.commit(view, actions)


def order_repair(*, order_id: str, actor: Actor, sleep: Callable[[float], None] = time.sleep) -> Repaired:
    """Rewrite the order's view items from the shop table, with ``actor``'s audit entry, in one transaction
    conditioned on the anchor's ``Rev`` as read before the shop; read again and retry when the sync wrote the
    anchor meanwhile. ``OrderConflict`` when it kept doing so (or the repair is too large for one transaction),
    ``NotFound`` for an order neither table holds anything of."""
    oid = keys.bare(order_id, keys.ORDER)
    pk, shards = keys.order(oid), schema.list_shards()
    view, shop = _tables()
    for attempt in range(REPAIR_ATTEMPTS):
        reading = repair.read_partition(view, shop, SOURCE, pk)
        if not reading.source_items and not reading.stored:
            raise NotFound("order", oid)
        try:
            found = repair.plan(reading, view.name, shards)
        except ValueError as exc:
            raise _unprojectable(oid, exc) from exc
        if not found.changes:
            return Repaired(oid, [], None, attempt + 1)
        entry = audit.entry(actor, action=REPAIR_ACTION, order_id=oid, detail=describe(found.changes))
        actions = _actions(found, entry, shop, view, shards)
        if len(actions) > MAX_ITEMS:
            raise OrderConflict(
                oid,
                None,
                f"order {oid} needs {len(actions)} writes, more than one transaction holds ({MAX_ITEMS}): "
                "run rebuild_adminview",
            )
        try:
            _commit(view, actions)
        except repair.Contended:
            sleep(full_jitter(attempt, base=0.05, cap=1.0))
            continue
        return Repaired(oid, found.changes, entry, attempt + 1)
    raise OrderConflict(
        oid,
        None,
        f"order {oid} keeps changing: the sync wrote it during each of {REPAIR_ATTEMPTS} attempts to repair it. "
        "Nothing was written; try again in a moment.",
    )
