"""One order's consistency: the view items its shop items imply beside those the view holds, a verdict on why
they differ, and a repair of that order's view items from the shop table, safe under a running sync.

Reads, a constant number whatever the tables hold (never a Scan), in the order that keeps both truthful next to
the live sync: the order's anchor (consistent GetItem), the shop partition ``o#<oid>`` (one consistent Query),
the sync's heartbeats (one Query), the view partition ``o#<oid>`` (one consistent Query, the anchor again among
its items).

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
the anchor's ``Rev``), so it never writes a state older than what the sync has applied; the staff member's audit
entry (shop table) and the activity items it implies (view table) go in the same TransactWriteItems, so the
repair is in ``/activity/`` exactly when it happened. Nothing here knows Django.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from adminview import anchors, figures, projection, repair, sync_status
from adminview.models import ORDER_SK, pending_shards
from adminview.projection import Image, ViewKey
from adminview.sync_status import Freshness
from adminview.table_walk import Table, shop_table, view_table
from adminview.view_diff import Change, compare
from dynamo import ddb_json
from dynamo.backoff import full_jitter
from dynamo.transactions import MAX_ITEMS
from shop import audit, keys
from shop.audit import Actor
from shop.errors import NotFound, OrderConflict
from shop.models import AuditEntry

IN_SYNC, BEHIND, DIFFERS = "in_sync", "behind", "differs"
REPAIR_ACTION = "repair-view"
SETTLE_S = 0.25  # far longer than the sync takes from its view items to its anchor
REPAIR_ATTEMPTS = 4
DETAIL_CHARS = 300
ACTIVITY_KIND = "activity"
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
    expected: Image | None
    stored: Image | None
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
    """One read of both partitions and of the sync's position, in the order the module docstring gives."""

    order_id: str
    anchor_before: Image | None  # read before the shop
    shop: list[Image]
    view: list[Image]
    read_at: float  # when the shop read ended (epoch seconds)
    freshness: Freshness | None  # None: the sync's state could not be read


@dataclass(frozen=True)
class Report:
    order_id: str
    verdict: str
    reason: str
    differences: list[Difference]
    expected: dict[ViewKey, Image]  # what the shop's items imply (bookkeeping left out)
    stored: dict[ViewKey, Image]  # what the view holds, as compared (bookkeeping and stubs left out)
    watermarks: list[SourceMark]
    rev: int | None  # the anchor's revision (None: no anchor, or one without)
    applied_at: datetime | None  # when the sync last wrote the anchor
    read_at: datetime
    freshness: Freshness | None
    unsettled: bool = False  # this look may have caught the sync half-way: look again before trusting it
    contradicted: list[ViewKey] = field(default_factory=list)


# --- reading ------------------------------------------------------------------------------------------------


def _anchor(view: Table, pk: str) -> Image | None:
    found: Image | None = view.client.get_item(
        TableName=view.name, Key=ddb_json.key(pk, ORDER_SK), ConsistentRead=True
    ).get("Item")
    return found


def _freshness() -> Freshness | None:
    try:
        return sync_status.freshness()
    except ClientError as exc:  # no sync table: nothing can be proven about the sync
        if exc.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
            raise
        return None


def read(order_id: str, *, clock: Callable[[], float] = time.time) -> Look:
    """Read the order's anchor, shop partition, the heartbeats and the view partition, in that order."""
    pk = keys.order(order_id)
    view, shop = view_table(), shop_table()
    anchor = _anchor(view, pk)
    shop_items = shop.partition(pk)
    read_at = clock()
    fresh = _freshness()
    return Look(keys.bare(order_id, keys.ORDER), anchor, shop_items, view.partition(pk), read_at, fresh)


# --- judging (pure) -----------------------------------------------------------------------------------------


def _unprojectable(order_id: str, exc: ValueError) -> OrderConflict:
    """Shop items the projection cannot read: the sync cannot apply their records either (dead letters)."""
    return OrderConflict(order_id, None, f"order {order_id}'s shop items cannot be projected: {exc}")


def _implied(order_id: str, shop_items: list[Image], shards: int) -> dict[ViewKey, Image]:
    try:
        return anchors.implied_view(shop_items, shards)
    except ValueError as exc:
        raise _unprojectable(order_id, exc) from exc


def _kind(item: Image | None) -> str | None:
    return ddb_json.string(item, "Kind")


def _against_anchor(
    key: ViewKey,
    anchor: Image | None,
    stored: dict[ViewKey, Image],
    shards: int,
    stored_counted: dict[ViewKey, Image] | None = None,
) -> set[ViewKey]:
    """View items of the collection (all but activity items, which need no anchor), and what the order counted,
    that disagree with what the anchor says the sync applied."""
    stored_counted = stored_counted or {}
    try:
        described = anchors.comparable(anchors.read(key, anchor).items(shards).values())
    except ValueError:  # an anchor that cannot be read back was not written by the sync
        return {key}
    collection = {k: item for k, item in stored.items() if _kind(item) != ACTIVITY_KIND}
    found = {change.key for change in compare(described, collection)}
    counted = stored_counted.get(figures.counted_key(key[0]))
    if counted is not None and figures.counted(keys.without_prefix(key[0], keys.ORDER) or "", counted) != (
        anchors.read(key, anchor).contribution()
    ):
        found.add(figures.counted_key(key[0]))  # what was counted is not what the anchor's facts contribute
    return found


def _order_facts(item: Image | None) -> Image:
    """A summary's attributes that follow from the shop's order item alone (not from its lines or invoices)."""
    return {name: value for name, value in (item or {}).items() if name not in (anchors.LINES, anchors.INVOICES)}


def _against_version(key: ViewKey, seen: Look, expected: dict[ViewKey, Image], stored: Image | None) -> str | None:
    """Every change of an order increments its ``Version``: a summary at the shop's version (or a newer one) with
    other order attributes was not written by the sync. (The ``order-status`` backfill adds a ``Status`` without
    one, but only to orders without a ``Status``, and every order our code writes has both.)"""
    order = next((i for i in seen.shop if ddb_json.string(i, "EntityType") == "order"), None)
    if order is None or _kind(stored) != "order":
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


def _watermarks(key: ViewKey, anchor: Image | None, shop_items: list[Image]) -> list[SourceMark]:
    state = anchors.read(key, anchor)
    marks = [
        SourceMark(sk, entity, state.applied(sk))
        for item in shop_items
        if (entity := ddb_json.string(item, "EntityType")) in anchors.ORDER_ENTITIES
        and (sk := ddb_json.string(item, "SK")) is not None
    ]
    held = {mark.sk for mark in marks}
    marks += [SourceMark(sk, None, seq, in_shop=False) for sk, seq in state.seqs.items() if sk not in held]
    return sorted(marks, key=lambda m: m.sk)


def judge(seen: Look, shards: int) -> Report:
    """The verdict on one look (the rules are the module docstring's)."""
    key = (keys.with_prefix(keys.ORDER, seen.order_id), ORDER_SK)
    expected = _implied(seen.order_id, seen.shop, shards)
    stored = anchors.comparable(seen.view)
    anchor = next((i for i in seen.view if ddb_json.item_key(i) == key), None)
    state = anchors.read(key, anchor)
    report = Report(
        order_id=seen.order_id,
        verdict=IN_SYNC,
        reason="The view holds exactly the items the shop's items imply.",
        differences=[],
        expected=expected,
        stored=stored,
        watermarks=_watermarks(key, anchor, seen.shop),
        rev=state.rev,
        applied_at=datetime.fromtimestamp(state.applied_at, UTC) if state.applied_at is not None else None,
        read_at=datetime.fromtimestamp(seen.read_at, UTC),
        freshness=seen.freshness,
    )
    changes = compare(expected, stored)
    counted = next((i for i in seen.view if figures.is_counted(i)), None)
    if anchors.counted_differs(key, seen.shop, counted):  # what the order added to the counters
        shop_contribution = anchors.from_shop(key, seen.shop).contribution()
        changes.append(
            Change("differing", figures.counted_key(key[0]), figures.counted_item(key[0], shop_contribution), counted)
        )
    if not changes:
        return report
    moved = (seen.anchor_before is None) != (anchor is None) or anchors.read(key, seen.anchor_before).rev != state.rev
    if moved:
        reason = "The order's view items were written while they were read (by the sync, a rebuild or a repair)."
        return _verdict(report, changes, BEHIND, reason, True)
    counted_items = {ddb_json.item_key(i): i for i in seen.view if figures.is_counted(i)}
    contradicted = _against_anchor(key, anchor, stored, shards, counted_items)
    if contradicted:
        shown = ", ".join(f"{pk} {sk}" for pk, sk in sorted(contradicted)[:3])
        reason = f"View items disagree with what the order's anchor says the sync applied ({shown})."
        return _verdict(report, changes, DIFFERS, reason, True, contradicted)
    version = _against_version(key, seen, expected, stored.get(key))
    if version:
        return _verdict(report, changes, DIFFERS, f"The view contradicts the shop: {version}.", False, {key})
    rewritten = {c.key for c in changes if c.kind == "differing" and _kind(c.actual) == ACTIVITY_KIND}
    if rewritten:
        reason = "An activity item differs from its audit entry, and audit entries never change."
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
    if not first.shop and not first.view:
        raise NotFound("order", first.order_id)
    shards = pending_shards()
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


def describe(changes: list[Change]) -> str:
    """A short account of a repair for its audit entry: each rewritten item, and a differing one's attributes."""
    parts = []
    for change in sorted(changes, key=lambda c: c.key):
        text = f"{change.kind} {change.key[1]}"
        names = [a.name for a in Difference(change.kind, change.key, change.expected, change.actual).attributes]
        if names:
            text += " (" + ", ".join(names) + ")"
        parts.append(text)
    line = f"rewrote {len(changes)} view item{'s' if len(changes) != 1 else ''}: " + "; ".join(parts)
    return line if len(line) <= DETAIL_CHARS else line[: DETAIL_CHARS - 1] + "…"


def _sk_of(action: dict[str, Any]) -> str:
    body = action.get("Put") or action.get("Delete") or {}
    return str(ddb_json.string(body.get("Item") or body.get("Key"), "SK") or "")


def _actions(found: repair.Plan, entry: AuditEntry, shop: Table, view: Table, shards: int) -> list[dict[str, Any]]:
    """The plan's writes as a rebuild commits them (the conditioned anchor write first), with the audit entry and
    its activity items."""
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
            for item in projection.activity_items(entry.pk, entry.sk, image, shards)
        ),
    ]
    planned = repair.transaction_actions(view.name, [found])
    return [planned[0], *audited, *planned[1:]]


def _commit(view: Table, actions: list[dict[str, Any]]) -> None:
    """One TransactWriteItems over both tables (tests replace this to race the sync against it)."""
    repair._commit(view, actions)


def order_repair(*, order_id: str, actor: Actor, sleep: Callable[[float], None] = time.sleep) -> Repaired:
    """Rewrite the order's view items from the shop table, with ``actor``'s audit entry, in one transaction
    conditioned on the anchor's ``Rev`` as read before the shop; read again and retry when the sync wrote the
    anchor meanwhile. ``OrderConflict`` when it kept doing so (or the repair is too large for one transaction),
    ``NotFound`` for an order neither table holds anything of."""
    oid = keys.bare(order_id, keys.ORDER)
    pk, shards = keys.order(oid), pending_shards()
    view, shop = view_table(), shop_table()
    for attempt in range(REPAIR_ATTEMPTS):
        anchor = _anchor(view, pk)
        shop_items, view_items = shop.partition(pk), view.partition(pk)
        if not shop_items and not view_items:
            raise NotFound("order", oid)
        try:
            found = repair.plan(view, pk, shop_items, view_items, anchor, shards)
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
