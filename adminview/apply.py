"""Applying stream records to the view: stale/replay filtering, folding, BatchWriteItem, the buyers join.

Order of work for a batch of records (Lambda event records or poller records, same shape):

1. project each record (pure; a record that cannot be projected fails alone);
2. read the per-source watermarks (BatchGetItem) and drop every record whose ``SequenceNumber`` is not newer
   than what was already applied for its shop item: replays and stale records change nothing;
3. fold the remaining ops in stream order into one final state per view key and write it with
   ``dynamo.batch.batch_write`` (25 a call, UnprocessedItems retried with backoff and jitter);
4. re-derive the buyer relations of every order touched (one consistent Query per order);
5. only then advance the watermarks, so a crash before this point replays the records, never skips them.

Records of one shop item all live in one stream shard, and one shard is processed by one worker at a time
(Lambda's event source mapping, or our poller), so the sync never races itself. It can race a rebuild run
meanwhile: each watermark advance is a PutItem conditioned on the watermark being what step 2 read, and
when a rebuild changed it in between (it may have overwritten what steps 3-4 wrote), that item's records
are applied again from a fresh read (see ``adminview.watermarks``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

from adminview import projection, records, watermarks
from adminview.models import ORDER_SK, ViewItem, pending_shards
from adminview.projection import Delete, Image, Put, ViewKey
from dynamo import ddb_json
from dynamo.batch import batch_write, delete_request, put_request
from dynamo.client import client_of
from dynamo.instrumentation import run_in_context
from dynamo.paging import raw_items
from shop import keys

log = logging.getLogger(__name__)
KEY_NAMES = ("PK", "SK")
WRITE_PARALLEL = 16  # BatchWriteItem calls in flight per batch (each 25 items)
RACE_ATTEMPTS = 5  # times an item's records are applied again after a rebuild changed its watermark


@dataclass
class Prepared:
    record: dict[str, Any]
    event_id: str
    seq: str
    source: ViewKey
    ops: list[projection.Op]
    order_id: str | None  # the order whose buyers must be re-derived (see projection.touched_order)
    is_order: bool = False  # the record is of the order item itself (else of an order item)


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
    seq = projection.normalize_seq(str(body.get("SequenceNumber", "")))
    image = new or old or {}
    return Prepared(
        record,
        event_id(record),
        seq,
        source,
        projection.project(old, new, shards),
        projection.touched_order(old, new),
        image.get("EntityType", {}).get("S") == "order",
    )


def _table() -> tuple[Any, str]:
    return client_of(ViewItem), str(ViewItem.Meta.table_name)


def _write(items: dict[ViewKey, Image | None], *, sleep: Callable[[float], None] | None = None) -> None:
    if not items:
        return
    client, table = _table()
    requests = [
        put_request(i) if i is not None else delete_request({"PK": {"S": k[0]}, "SK": {"S": k[1]}})
        for k, i in items.items()
    ]
    kwargs: dict[str, Any] = {"sleep": sleep} if sleep else {}
    batch_write(client, table, requests, key_names=KEY_NAMES, parallel=WRITE_PARALLEL, **kwargs)


def _watermarks(sources: list[ViewKey]) -> dict[ViewKey, watermarks.Mark]:
    client, table = _table()
    return watermarks.read(client, table, sources)


def _advance(marks: dict[ViewKey, watermarks.Mark], newest: dict[ViewKey, str]) -> set[ViewKey]:
    """Advance each source's watermark unless it changed since it was read; returns those that had changed."""
    client, table = _table()

    def one(source: ViewKey) -> ViewKey | None:
        try:
            client.put_item(**watermarks.advance(table, source, marks[source], newest[source]))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            return source
        return None

    sources = sorted(newest)
    if len(sources) <= 1:
        return {s for s in map(one, sources) if s}
    with ThreadPoolExecutor(max_workers=min(WRITE_PARALLEL, len(sources))) as pool:
        return {s for s in pool.map(run_in_context(one), sources) if s}


def _order_collection(order_id: str) -> list[Image]:
    client, table = _table()
    return list(
        raw_items(
            client,
            "query",
            TableName=table,
            KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": keys.ORDER + order_id}},
            ConsistentRead=True,
        )
    )


def rederive(order_ids: Sequence[str]) -> int:
    """Re-derive the buyers index membership of these orders from what the view now holds."""

    def one(order_id: str) -> list[Image]:
        items = _order_collection(order_id)
        summary = next((i for i in items if i["SK"]["S"] == ORDER_SK), None)
        return projection.derive_buyers(summary, [i for i in items if i["Kind"]["S"] == "buyer"])

    ids = sorted(set(order_ids))
    if not ids:
        return 0
    with ThreadPoolExecutor(max_workers=min(8, len(ids))) as pool:
        fixes = [i for batch in pool.map(run_in_context(one), ids) for i in batch]
    _write({ddb_json.item_key(i): i for i in fixes})
    return len(fixes)


def _derive_in_batch(final: dict[ViewKey, Image | None], order_ids: set[str]) -> set[str]:
    """Orders whose new buyer relations arrived in the same batch as their summary: derive them in memory
    (the usual case: an order placed in one transaction). Returns the orders that need a Query instead."""
    by_order: dict[str, list[Image]] = {}
    for (pk, _sk), item in final.items():
        if item is not None and item["Kind"]["S"] == "buyer":
            by_order.setdefault(pk, []).append(item)
    need_query: set[str] = set()
    for order_id in order_ids:
        summary = final.get((keys.ORDER + order_id, ORDER_SK))
        if summary is None:  # summary not in this batch (or deleted by it): read the view
            need_query.add(order_id)
            continue
        for fixed in projection.derive_buyers(summary, by_order.get(keys.ORDER + order_id, [])):
            final[ddb_json.item_key(fixed)] = fixed
    return need_query


def _apply_prepared(batch: list[Prepared]) -> tuple[int, int]:
    total = len(batch)
    # Records that imply nothing for the view (stock, shipments, products...) need no watermark: replaying
    # an older record of such an item can only put what its new image implies, which is nothing.
    batch = [p for p in batch if p.ops or p.order_id]
    applied, skipped, raced = _apply_once(batch)
    for _ in range(RACE_ATTEMPTS):
        if not raced:
            return applied, total - len(batch) + skipped
        _, _, raced = _apply_once([p for p in batch if p.source in raced])
    raise RuntimeError(f"watermarks of {sorted(raced)[:3]} kept changing (a rebuild writing them?)")


def _apply_once(batch: list[Prepared]) -> tuple[int, int, set[ViewKey]]:
    """Apply once; returns (applied, skipped, sources whose watermark changed under us)."""
    marks = _watermarks(list(dict.fromkeys(p.source for p in batch)))
    final: dict[ViewKey, Image | None] = {}
    newest: dict[ViewKey, str] = {}
    status_changed: set[str] = set()
    new_buyers: set[str] = set()
    applied = skipped = 0
    for p in batch:
        mark = marks[p.source]
        if watermarks.too_old(mark, (p.record.get("dynamodb") or {}).get("ApproximateCreationDateTime")):
            raise ValueError(
                f"record {p.event_id} of {p.source[0]} {p.source[1]} is older than a watermark's lifetime "
                f"({watermarks.MAX_RECORD_AGE_S // 3600} h) and the item has none, so newer state may already "
                "be in the view: not applied (rebuild_adminview repairs the view from the shop table)"
            )
        seen = newest.get(p.source) or mark.seq
        if seen is not None and p.seq <= seen:
            skipped += 1
            continue
        for op in p.ops:
            final[op.key] = op.item if isinstance(op, Put) else None
        newest[p.source] = p.seq
        if p.order_id:
            (status_changed if p.is_order else new_buyers).add(p.order_id)
        applied += 1
    status_changed |= _derive_in_batch(final, new_buyers - status_changed)
    _write(final)
    rederive(sorted(status_changed))
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
        applied, skipped = _apply_prepared(prepared)
        outcome.applied += applied
        outcome.skipped += skipped
        return outcome
    except Exception as exc:
        log.warning("batch of %d records failed (%s); applying them one by one", len(prepared), exc)
    for p in prepared:  # isolate the record(s) that break the batch
        try:
            applied, skipped = _apply_prepared([p])
            outcome.applied += applied
            outcome.skipped += skipped
        except Exception as exc:
            outcome.failed[p.event_id] = f"{type(exc).__name__}: {exc}"
    return outcome


__all__ = ["Delete", "Outcome", "Put", "apply_records", "rederive"]
