"""Applying stream records to the view: stale and replayed records filtered by the anchors, BatchWriteItem for
the view items, conditional writes of the anchors.

A batch (Lambda event records or poller records, same shape):

1. each record is checked and its shop item's anchor named (pure; a record that cannot be read fails alone);
2. the anchors are read (one consistent BatchGetItem per 100), and each anchor's records are folded into its
   state in stream order, skipping every record that is not newer than what the anchor says was applied for
   its shop item: replays and stale records change nothing. An order's collection is one anchor, so its buyer
   relations and payment references follow from the whole collection, whatever order its records come in;
3. the view items that changed are written with ``dynamo.batch.batch_write`` (25 a call, calls in parallel,
   UnprocessedItems retried with backoff and jitter), audit entries' activity items with them;
4. only then are the anchors written, each conditioned on the ``Rev`` read in step 2 (``_advance``), so a crash
   before this point replays the records, never skips them.

Records of one shop item all live in one stream shard, and one shard is processed by one worker at a time
(Lambda's event source mapping with ParallelizationFactor 1, or our poller), so the sync never races itself. It
can race a rebuild or a repair: when one changed an anchor between step 2 and step 4 (it may have overwritten
what step 3 wrote), that anchor's records are applied again from a fresh read (see ``adminview.watermarks``).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from adminview import anchors, figures, projection, records, watermarks
from adminview.models import ORDER_SK, ViewItem, pending_shards
from adminview.projection import Image, Put, ViewKey
from dynamo import ddb_json
from dynamo.batch import batch_write, delete_request, put_request
from dynamo.client import client_of
from dynamo.conditional_writes import put_conditionally
from dynamo.instrumentation import run_in_context
from shop import keys

log = logging.getLogger(__name__)
KEY_NAMES = ("PK", "SK")
WRITE_PARALLEL = 32  # BatchWriteItem calls (each 25 items) and anchor PutItems in flight per batch
RACE_ATTEMPTS = 5  # times an anchor's records are applied again after a rebuild changed it
MAX_TRANSACTION = 100  # TransactWriteItems' limit on actions


@dataclass
class Prepared:
    record: dict[str, Any]
    event_id: str
    seq: str
    source: ViewKey
    new: Image | None  # the shop item's image after the change (None: removed)
    anchor: ViewKey | None  # where the shop item's view items are anchored (None: see ``ops``)
    ops: list[projection.Op]  # an audit entry's activity items (they are never changed, so need no anchor)

    @property
    def created(self) -> object:
        return (self.record.get("dynamodb") or {}).get("ApproximateCreationDateTime")


@dataclass
class Outcome:
    applied: int = 0
    skipped: int = 0  # nothing to change: stale, replayed, or no effect on the view
    failed: dict[str, str] = field(default_factory=dict)  # failure key (see failure_key) -> error
    dead_lettered: int = 0  # failed records stored (or stored again) in the dead-letter store by this batch


def event_id(record: Any) -> str:
    """``eventID``, else the sequence number; empty when the record has neither (see ``failure_key``)."""
    own = record.get("eventID") if isinstance(record, dict) else None
    return str(own or records.sequence_number(record) or "")


def failure_key(record: Any, index: int) -> str:
    """How ``Outcome.failed`` names a record: its event id, or its position when it has no id at all."""
    return event_id(record) or f"#{index}"


def prepare(record: dict[str, Any], shards: int) -> Prepared:
    event = records.check(record)
    body = record["dynamodb"]
    # only the images this kind of change carries: a stray image must not change what the record means
    old = body.get("OldImage") if event != "INSERT" else None
    new = body.get("NewImage") if event != "REMOVE" else None
    source = ddb_json.maybe_key(body.get("Keys") or new or old or {})
    if source is None:
        raise ValueError("record has no PK/SK keys")
    seq = str(body.get("SequenceNumber", ""))
    anchors.seq_number(seq)  # numeric, or the record fails here
    image = new or old or {}
    ops = projection.project(old, new, shards)  # fails now, alone, if an image cannot be projected
    anchor = anchors.anchor_key(source, ddb_json.string(image, "EntityType"))
    return Prepared(record, event_id(record), seq, source, new, anchor, [] if anchor is not None else ops)


def _table() -> tuple[Any, str]:
    return client_of(ViewItem), str(ViewItem.Meta.table_name)


def _write(items: dict[ViewKey, Image | None], *, sleep: Callable[[float], None] | None = None) -> None:
    if not items:
        return
    client, table = _table()
    requests = [put_request(i) if i is not None else delete_request(ddb_json.key(*k)) for k, i in items.items()]
    kwargs: dict[str, Any] = {"sleep": sleep} if sleep else {}
    batch_write(client, table, requests, key_names=KEY_NAMES, parallel=WRITE_PARALLEL, **kwargs)


def _read_anchors(anchor_keys: list[ViewKey]) -> dict[ViewKey, Image | None]:
    client, table = _table()
    return watermarks.read_anchors(client, table, anchor_keys)


def _advance(marks: dict[ViewKey, watermarks.Mark], newest: dict[ViewKey, Image]) -> set[ViewKey]:
    """Write each anchor unless it changed since it was read; returns those that had changed. An order's anchor
    whose contribution to the counters changed goes in a TransactWriteItems with the counters' difference
    (``adminview.figures``); the others are conditional PutItems."""
    shards = figures.stats_shards()
    plain: list[ViewKey] = []
    counting: dict[int, list[tuple[ViewKey, figures.Deltas]]] = {}
    for key, anchor in newest.items():
        order_id = keys.without_prefix(key[0], keys.ORDER) if key[1] == ORDER_SK else None
        deltas = _counter_deltas(order_id, marks[key], anchor, shards) if order_id else {}
        if order_id and deltas:
            counting.setdefault(figures.shard_of(order_id, shards), []).append((key, deltas))
        else:
            plain.append(key)
    work: list[Callable[[], set[ViewKey]]] = [partial(_put_anchors, marks, newest, plain)] if plain else []
    work += [partial(_count_anchors, marks, newest, group) for group in counting.values()]
    if len(work) <= 1:
        return {k for job in work for k in job()}
    with ThreadPoolExecutor(max_workers=min(WRITE_PARALLEL, len(work))) as pool:
        return {k for raced in pool.map(lambda job: run_in_context(job)(), work) for k in raced}


def _contribution(key: ViewKey, anchor: Image) -> figures.Contribution:
    return anchors.read(key, anchor).contribution()


def _counter_deltas(order_id: str, mark: watermarks.Mark, anchor: Image, shards: int) -> figures.Deltas:
    """What the new anchor's facts contribute to the counters beyond what was counted (``mark.counted``)."""
    old = mark.counted or figures.Contribution(order_id)
    return figures.difference(old, _contribution(ddb_json.item_key(anchor), anchor), shards)


def _put_anchors(
    marks: dict[ViewKey, watermarks.Mark], newest: dict[ViewKey, Image], anchor_keys: list[ViewKey]
) -> set[ViewKey]:
    """Anchors whose counters do not change: conditional writes, 25 a call (``dynamo.conditional_writes``)."""
    client, table = _table()
    writes = [watermarks.conditional_put(table, key, marks[key], newest[key]) for key in anchor_keys]
    return {anchor_keys[i] for i in put_conditionally(client, table, writes, parallel=WRITE_PARALLEL)}


def _count_anchors(
    marks: dict[ViewKey, watermarks.Mark],
    newest: dict[ViewKey, Image],
    group: list[tuple[ViewKey, figures.Deltas]],
) -> set[ViewKey]:
    """Anchors of one counter shard, with their counters' differences, in as few transactions as fit (one after
    another: they add to the same counter items). A transaction that fails its conditions fails whole: all its
    anchors are applied again from fresh reads."""
    client, table = _table()
    raced: set[ViewKey] = set()
    pending: list[tuple[ViewKey, figures.Deltas]] = []

    def flush() -> None:
        counters = figures.merge(deltas for _key, deltas in pending)
        actions = [{"Put": watermarks.advance(table, key, marks[key], newest[key])} for key, _d in pending]
        actions += [
            {"Put": {"TableName": table, "Item": figures.counted_item(key[0], _contribution(key, newest[key]))}}
            for key, _d in pending
        ]
        actions += [figures.counter_update(table, key, values) for key, values in counters.items()]
        try:
            client.transact_write_items(TransactItems=actions)
        except client.exceptions.TransactionCanceledException as exc:
            reasons = {r.get("Code") for r in exc.response.get("CancellationReasons", [])}
            if not reasons & {"ConditionalCheckFailed", "TransactionConflict"}:
                raise
            raced.update(key for key, _d in pending)
        pending.clear()

    for key, deltas in group:
        counters = figures.merge(d for _k, d in [*pending, (key, deltas)])
        if pending and 2 * (len(pending) + 1) + len(counters) > MAX_TRANSACTION:
            flush()
        pending.append((key, deltas))
    flush()
    return raced


@dataclass
class _Folded:
    """One anchor's records folded into its state: what to write."""

    writes: dict[ViewKey, Image | None] = field(default_factory=dict)  # view items that follow from the anchor
    anchor: Image | None = None  # the anchor to write last (None: nothing applied)
    applied: int = 0
    skipped: int = 0


def _fold(key: ViewKey, stored: Image | None, group: list[Prepared], shards: int) -> _Folded:
    state = anchors.read(key, stored)
    before = copy.deepcopy(state)
    folded = _Folded()
    for p in group:
        if watermarks.too_old(watermarks.Mark(state.stored, state.applied(p.source[1])), p.created):
            raise ValueError(
                f"record {p.event_id} of {p.source[0]} {p.source[1]} is older than a watermark's lifetime "
                f"({watermarks.MAX_RECORD_AGE_S // 3600} h) and the item has none, so newer state may already "
                "be in the view: not applied (rebuild_adminview repairs the view from the shop table)"
            )
        if not state.is_new(p.source[1], p.seq):
            folded.skipped += 1
            continue
        state.apply(p.source[1], p.seq, p.new)
        folded.applied += 1
    if not folded.applied:
        return folded
    old_items, new_items = before.items(shards), state.items(shards)
    folded.anchor = new_items.pop(key)
    old_items.pop(key)
    folded.writes = {k: None for k in old_items if k not in new_items}
    folded.writes |= {k: item for k, item in new_items.items() if old_items.get(k) != item}
    return folded


def _apply_prepared(batch: list[Prepared], shards: int) -> tuple[int, int]:
    total = len(batch)
    immutable = [p for p in batch if p.anchor is None and p.ops]
    anchored = [p for p in batch if p.anchor is not None]
    # Records that imply nothing for the view (stock, shipments, products...) need no anchor: replaying an
    # older record of such an item can only put what its new image implies, which is nothing.
    _write({op.key: op.item if isinstance(op, Put) else None for p in immutable for op in p.ops})
    applied, skipped, raced = _apply_once(anchored, shards)
    for _ in range(RACE_ATTEMPTS):
        if not raced:
            ignored = total - len(immutable) - len(anchored)
            return applied + len(immutable), skipped + ignored
        _, _, raced = _apply_once([p for p in anchored if p.anchor in raced], shards)
    raise RuntimeError(f"anchors {sorted(raced)[:3]} kept changing (a rebuild writing them?)")


def _apply_once(batch: list[Prepared], shards: int) -> tuple[int, int, set[ViewKey]]:
    """Apply once; returns (applied, skipped, anchors that changed under us)."""
    groups: dict[ViewKey, list[Prepared]] = {}
    for p in batch:
        assert p.anchor is not None
        groups.setdefault(p.anchor, []).append(p)
    counted_keys = [figures.counted_key(key[0]) for key in groups if key[1] == ORDER_SK]
    stored = _read_anchors([*groups, *counted_keys])
    writes: dict[ViewKey, Image | None] = {}
    newest: dict[ViewKey, Image] = {}
    marks: dict[ViewKey, watermarks.Mark] = {}
    applied = skipped = 0
    for key, group in groups.items():
        folded = _fold(key, stored[key], group, shards)
        applied += folded.applied
        skipped += folded.skipped
        writes |= folded.writes
        if folded.anchor is not None:
            newest[key] = folded.anchor
            marks[key] = watermarks.Mark.of(stored[key], counted=stored.get(figures.counted_key(key[0])))
    _write(writes)
    return applied, skipped, _advance(marks, newest)


def _error_text(exc: Exception) -> str:
    return str(exc) if isinstance(exc, records.UnusableRecord) else f"{type(exc).__name__}: {exc}"


def apply_records(batch: Sequence[dict[str, Any]]) -> Outcome:
    """Apply stream records (DynamoDB Streams / Lambda event shape) in order; never raises for a record."""
    outcome = Outcome()
    shards = pending_shards()
    prepared: list[Prepared] = []
    for index, record in enumerate(batch):
        try:
            prepared.append(prepare(record, shards))
        except Exception as exc:  # a poison record fails alone
            outcome.failed[failure_key(record, index)] = _error_text(exc)
    if not prepared:
        return outcome
    try:
        applied, skipped = _apply_prepared(prepared, shards)
        outcome.applied += applied
        outcome.skipped += skipped
        return outcome
    except Exception as exc:
        log.warning("batch of %d records failed (%s); applying them one by one", len(prepared), exc)
    for p in prepared:  # isolate the record(s) that break the batch
        try:
            applied, skipped = _apply_prepared([p], shards)
            outcome.applied += applied
            outcome.skipped += skipped
        except Exception as exc:
            outcome.failed[p.event_id] = f"{type(exc).__name__}: {exc}"
    return outcome


__all__ = ["Outcome", "apply_records"]
