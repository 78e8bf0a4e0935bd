"""The sync stages: the shop table's stream read by the product's own poller (``adminview.sync.poller``: every shard,
expired iterators renewed from its checkpoint) into the same code as the Lambda handler.

Measured over the whole stream: records/s, each record's lag (applied minus ``ApproximateCreationDateTime``),
CPU per record (this process's, the handler's share of it, the engine's: ``cpu_per_record``), and the write units
the view table consumed per shop-table write, counted from ``ReturnConsumedCapacity`` on every write call, split
two ways:

- the anchors' share (order summaries, profiles and catalogue rows, which also carry the sequence numbers that
  make replays harmless) and the rest;
- the projection with its replay protection (anchors, list entries, payment references, profiles, activity,
  catalogue rows) and the numbers' upkeep (sums: counters ``STATS#...`` and buyer relations ``b#...``, each
  anchor's ``#counted`` item, and half of any other item written inside a TransactWriteItems, where writes cost
  twice).

DynamoDB reports one figure per call and table, so a call that writes items of several classes splits its units
by each item's weight: its size in KB rounded up (``item_size``), times one plus the number of index key pairs it
carries (each index it is in is written too), doubled in a transaction. A Put is weighed by its item; an Update by
its key and values, a Delete or a ConditionCheck by its key (what the call sends: the stored item is not known).

The weights are DynamoDB's billing rules applied to what was sent, so their sums are also reported as an estimate
beside the reported units: DynamoDB Local 3.x reports about 2 units for a whole TransactWriteItems, whatever it
writes (real DynamoDB: 2 per item and KB), so on it the reported units understate the numbers' upkeep.

Every DynamoDB call the sync makes while it applies the stream is counted too, by operation, through the same
hooks (``counting_calls``): the view's client, the sync table's and the poller's streams client.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from pynamodb.signals import pre_dynamodb_send

from adminview.core import schema
from adminview.reads import selectors
from adminview.sync.poller import Poller
from adminview.tables import SyncItem, ViewItem
from bench import cpu
from bench.measure import percentile
from dynamo import ddb_json
from dynamo.client import client_of
from shop import keys, seeding
from shop.models import Inventory

PAGE_LIMIT = 50
_KIND = "bench_view_write_kind"


class TimedPoller(Poller):
    """The product's poller, noting when each record was applied (for lag over the whole stream), the CPU spent
    while its ``process`` calls run (the handler's share of the process's CPU: the handler applies a batch with
    worker threads, which process time includes), and the first ``keep`` records of each source's stream it was
    given, in the order it was given them (``bench.by_kind`` folds them again one at a time)."""

    def __init__(self, *, keep: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lags_s: list[float] = []
        self.keep = keep
        self.kept_by_stream: dict[str, list[dict[str, Any]]] = {}
        self.handling = cpu.BusyCpu()
        self._keeping = threading.Lock()

    def process(self, records: list[dict[str, Any]], *, shard_id: str | None = None) -> None:
        with self._keeping:
            for record in records:
                kept = self.kept_by_stream.setdefault(str(record.get("eventSourceARN")), [])
                if len(kept) < self.keep:
                    kept.append(record)
        with self.handling.span():
            super().process(records, shard_id=shard_id)
        now = time.time()
        for record in records:
            created = record["dynamodb"].get("ApproximateCreationDateTime")
            if isinstance(created, int | float):
                self.lags_s.append(max(0.0, now - float(created)))

    @property
    def kept(self) -> list[dict[str, Any]]:
        """The records kept, stream by stream."""
        return [record for kept in self.kept_by_stream.values() for record in kept]

    def drain(self) -> int:
        """Apply every record the stream holds now; returns how many were read."""
        before = self.stats.records
        self.run(follow=False)
        return self.stats.records - before


def poller(*, keep: int = 0) -> TimedPoller:
    return TimedPoller.for_sources(keep=keep)


_WRITES = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems", "BatchExecuteStatement")
_INSERTED = re.compile(r"'([^']*)': \?")  # the names of an INSERT's VALUE, in the order of its parameters
_SET = re.compile(r'SET "([^"]*)"=\?')  # an UPDATE's set names (its parameters; then the key's in its WHERE)
ANCHOR_SKS = (schema.ORDER_SK, schema.PROFILE_SK, schema.PRODUCT_SK)
KB = 1024


@dataclass
class ViewWrites:
    """Write units a table consumed (the view's; the shop's for ``bench.order_life``): anchors and the rest; and,
    across both, the numbers' upkeep (the projection's share is the remainder). Units of a call are split by its
    items' weights (``Written``). The hooks that count them run in the threads making the calls, so they add up
    under a lock and note their own CPU (``hooks_cpu_s``: the benchmark's, not the product's)."""

    anchor_wcu: float = 0.0
    anchor_items: int = 0
    other_wcu: float = 0.0
    other_items: int = 0
    numbers_wcu: float = 0.0
    numbers_items: int = 0  # sums and #counted items (not the transactional surcharges of others)
    estimated_wcu: float = 0.0  # the weights of the successful calls' items: DynamoDB's rules, not its report
    estimated_numbers_wcu: float = 0.0
    index_entries: int = 0  # of the successful calls' items: one per index whose key pair an item carries
    calls: int = 0  # every call naming the table, reads included
    hooks_cpu_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def total_wcu(self) -> float:
        return self.anchor_wcu + self.other_wcu

    @property
    def projection_wcu(self) -> float:
        return self.total_wcu - self.numbers_wcu


@dataclass(frozen=True)
class Written:
    """One item a write call writes to the view table, and its weight in the call's units."""

    pk: str
    sk: str
    weight: float
    transactional: bool = False
    index_entries: int = 0  # the indexes whose key pair it carries (each is written too)

    @property
    def anchor(self) -> bool:
        return self.sk in ANCHOR_SKS

    @property
    def numbers(self) -> bool:
        """An item that exists only for the numbers: a sum (counters, buyer relations) or an anchor's
        ``#counted``."""
        return schema.is_sum((self.pk, self.sk)) or self.sk.endswith(schema.COUNTED_SUFFIX)

    @property
    def numbers_share(self) -> float:
        """The part of its weight that is the numbers' upkeep: all of a numbers item; half of any other item
        written in a transaction (the sync puts an order's anchor in one only to move its counters with it, and a
        transactional write costs twice a plain one)."""
        if self.numbers:
            return 1.0
        return 0.5 if self.transactional else 0.0


def _number_size(text: str) -> int:
    digits = text.lstrip("-").replace(".", "").split("e")[0].split("E")[0].strip("0")
    return (max(1, len(digits)) + 1) // 2 + 1


def value_size(value: Mapping[str, Any]) -> int:
    """Bytes of one attribute value as DynamoDB counts them (strings and binaries by length, numbers about one
    byte per two significant digits plus one, maps and lists 3 bytes plus one per element)."""
    ((kind, data),) = value.items()
    if kind == "S":
        return len(str(data).encode())
    if kind == "N":
        return _number_size(str(data))
    if kind == "B":
        return len(data)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(name.encode()) + value_size(element) + 1 for name, element in data.items())
    if kind == "L":
        return 3 + sum(value_size(element) + 1 for element in data)
    if kind == "SS":
        return sum(len(str(element).encode()) for element in data)
    if kind == "NS":
        return sum(_number_size(str(element)) for element in data)
    return sum(len(element) for element in data)  # BS


def item_size(item: Mapping[str, Any]) -> int:
    """Bytes of an item: each attribute's name and value."""
    return sum(len(name.encode()) + value_size(value) for name, value in item.items())


def _written(
    item: Mapping[str, Any] | None, index_keys: Sequence[Sequence[str]], *, transactional: bool = False
) -> Written:
    item = item or {}
    pairs = sum(1 for names in index_keys if names and all(name in item for name in names))
    units = max(1, math.ceil(item_size(item) / KB)) * (1 + pairs) * (2 if transactional else 1)
    pk, sk = ddb_json.string(item, "PK") or "", ddb_json.string(item, "SK") or ""
    return Written(pk, sk, float(units), transactional, pairs)


def _sent(action: Mapping[str, Any]) -> dict[str, Any]:
    """What an Update, Delete or ConditionCheck sends of its item: its key (and an Update's values)."""
    return {**(action.get("Key") or {}), **(action.get("ExpressionAttributeValues") or {})}


def _statement_item(statement: Mapping[str, Any]) -> dict[str, Any]:
    """What a PartiQL ``INSERT`` or ``UPDATE`` (as ``dynamo.statements`` writes them) writes of its item: its
    values by name, the key included."""
    text, parameters = statement["Statement"], statement.get("Parameters") or []
    names = _INSERTED.findall(text) if text.startswith("INSERT") else [*_SET.findall(text), schema.PK, schema.SK]
    return dict(zip(names, parameters, strict=False))


def _statements_on(params: Mapping[str, Any], table: str) -> list[dict[str, Any]]:
    return [s for s in params.get("Statements") or [] if f'"{table}"' in s.get("Statement", "")]


def written_items(
    operation: str, params: dict[str, Any], table: str, index_keys: Sequence[Sequence[str]] = ()
) -> list[Written]:
    """The items a write call writes to ``table``, each weighed (``index_keys``: each index's key attributes)."""
    if operation == "BatchWriteItem":
        return [
            _written(r["PutRequest"]["Item"], index_keys)
            if "PutRequest" in r
            else _written(r.get("DeleteRequest", {}).get("Key"), ())
            for r in (params.get("RequestItems") or {}).get(table, [])
        ]
    if operation == "BatchExecuteStatement":
        return [_written(_statement_item(s), index_keys) for s in _statements_on(params, table)]
    if operation == "TransactWriteItems":
        out = []
        for entry in params.get("TransactItems", []):
            kind, action = next(iter(entry.items()), ("", {}))
            action = dict(action)
            if action.get("TableName") == table:
                item, keys_of = (action.get("Item"), index_keys) if kind == "Put" else (_sent(action), ())
                out.append(_written(item, keys_of, transactional=True))
        return out
    if params.get("TableName") != table:
        return []
    if operation == "PutItem":
        return [_written(params.get("Item"), index_keys)]
    return [_written(_sent(params), ())]


def written_keys(operation: str, params: dict[str, Any], table: str) -> list[str]:
    """The sort keys a write call writes to ``table``."""
    return [w.sk for w in written_items(operation, params, table)]


def index_key_names(client: Any, table: str) -> list[list[str]]:
    """Each global secondary index's key attributes (an item carrying them all is written to that index too)."""
    description = client.describe_table(TableName=table)["Table"]
    return [[k["AttributeName"] for k in index["KeySchema"]] for index in description.get("GlobalSecondaryIndexes", [])]


@contextmanager
def counting_writes(item_model: Any) -> Iterator[ViewWrites]:
    """Count the items and consumed WCU of every write to ``item_model``'s table, through botocore's event
    hooks."""
    client, table = client_of(item_model), str(item_model.Meta.table_name)
    index_keys = index_key_names(client, table)
    counted = ViewWrites()
    events = client.meta.events

    def classify(params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        started = time.thread_time()
        if model.name in _WRITES:
            context[_KIND] = written_items(model.name, params, table, index_keys)
            params.setdefault("ReturnConsumedCapacity", "TOTAL")  # the product asks only while it records
        names = _names(params, table)
        with counted.lock:
            counted.calls += names
            counted.hooks_cpu_s += time.thread_time() - started

    def consumed(parsed: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        started = time.thread_time()
        written: list[Written] = context.get(_KIND) or []
        if written:
            with counted.lock:
                _add(counted, written, parsed, table)
        with counted.lock:
            counted.hooks_cpu_s += time.thread_time() - started

    events.register("before-parameter-build.dynamodb", classify)
    events.register("after-call.dynamodb", consumed)
    try:
        yield counted
    finally:
        events.unregister("before-parameter-build.dynamodb", classify)
        events.unregister("after-call.dynamodb", consumed)


def counting_view_writes() -> AbstractContextManager[ViewWrites]:
    """``counting_writes`` of the view table."""
    return counting_writes(ViewItem)


@dataclass
class CallCount:
    """Calls made through the counted clients, by operation; the hooks note their own CPU (the benchmark's)."""

    by_operation: Counter[str] = field(default_factory=Counter)
    hooks_cpu_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def total(self) -> int:
        return sum(self.by_operation.values())


@contextmanager
def counting_calls(clients: Iterable[Any], models: Iterable[Any] = ()) -> Iterator[CallCount]:
    """Count every call made through ``clients``, by operation, once however many attempts it took: botocore's
    ``before-parameter-build`` event, the one ``counting_writes`` classes writes on. Calls that ``models`` make on
    their tables through PynamoDB's own connections (another client) count too, through PynamoDB's signal."""
    counted = CallCount()
    hooked = {id(client): client for client in clients}
    tables = {str(model.Meta.table_name) for model in models}

    def note(model: Any, **_: Any) -> None:
        started = time.thread_time()
        with counted.lock:
            counted.by_operation[model.name] += 1
            counted.hooks_cpu_s += time.thread_time() - started

    def note_model_call(sender: Any, operation_name: str, table_name: str | None, **_: Any) -> None:
        if table_name in tables and id(sender.client) not in hooked:
            with counted.lock:
                counted.by_operation[operation_name] += 1

    events = [
        (c.meta.events, f"before-parameter-build.{c.meta.service_model.service_id.hyphenize()}")
        for c in hooked.values()
    ]
    for emitter, event in events:
        emitter.register(event, note)
    pre_dynamodb_send.connect(note_model_call)
    try:
        yield counted
    finally:
        pre_dynamodb_send.disconnect(note_model_call)
        for emitter, event in events:
            emitter.unregister(event, note)


def sync_clients(reader: Poller) -> list[Any]:
    """Every client the sync calls DynamoDB through: the view's (its reads and writes, and a settle's reads of a
    source table), the sync table's (checkpoints, heartbeat, dead letters) and the poller's streams client
    (DescribeStream, GetShardIterator, GetRecords)."""
    return [client_of(ViewItem), client_of(SyncItem), reader.client]


def _names(params: Mapping[str, Any], table: str) -> bool:
    """Whether a call's parameters name ``table`` (a single-item call, a batch, a transaction)."""
    if params.get("TableName") == table or table in (params.get("RequestItems") or {}) or _statements_on(params, table):
        return True
    return any(
        dict(action).get("TableName") == table for e in params.get("TransactItems") or [] for action in e.values()
    )


def _add(counted: ViewWrites, written: list[Written], parsed: dict[str, Any], table: str) -> None:
    """One call's items and units (as DynamoDB reported them, split by weight; and as weighed). A call the engine
    reports no units for (DynamoDB Local's BatchExecuteStatement; DynamoDB reports them) counts its weighed units."""
    entries = parsed.get("ConsumedCapacity") or []
    entries = entries if isinstance(entries, list) else [entries]
    units = sum(float(c.get("CapacityUnits", 0.0)) for c in entries if c.get("TableName", table) == table)
    total = sum(w.weight for w in written)
    if not entries and "Error" not in parsed:
        units = total
    anchors = sum(w.weight for w in written if w.anchor)
    numbers = sum(w.weight * w.numbers_share for w in written)
    counted.anchor_wcu += units * anchors / total
    counted.other_wcu += units * (total - anchors) / total
    counted.numbers_wcu += units * numbers / total
    counted.anchor_items += sum(1 for w in written if w.anchor)
    counted.other_items += sum(1 for w in written if not w.anchor)
    counted.numbers_items += sum(1 for w in written if w.numbers)
    if "Error" not in parsed:
        counted.estimated_wcu += total
        counted.estimated_numbers_wcu += numbers
        counted.index_entries += sum(w.index_entries for w in written)


def _ms(values_s: list[float], q: float) -> float:
    return round((percentile(values_s, q) or 0.0) * 1000.0, 1)


def sync(reader: TimedPoller) -> dict[str, Any]:
    """Drain the whole stream (everything seeding wrote) through the poller. The drain starts after seeding
    finished, so a record's lag here is mostly the time it waited for the drain to reach it (a backlog)."""
    before, first_lag = _counts(reader), len(reader.lags_s)
    with counting_view_writes() as writes, counting_calls(sync_clients(reader), (ViewItem, SyncItem)) as calls:
        handled, spent = reader.handling.seconds, cpu.Snapshot.now()
        started = time.perf_counter()
        records = reader.drain()
        seconds = time.perf_counter() - started
        used = cpu.Snapshot.now()
        handled = reader.handling.seconds - handled
    stats = {name: value - before[name] for name, value in _counts(reader).items()}
    view_wcu, lags = writes.total_wcu, reader.lags_s[first_lag:]

    def per_write(units: float) -> float | None:
        return round(units / records, 3) if records else None

    return {
        "records": records,
        "seconds": round(seconds, 3),
        "records_per_s": round(records / seconds, 1) if seconds else None,
        "applied": stats["applied"],
        "skipped": stats["skipped"],
        "failed": stats["dead_lettered"],
        "batches": stats["batches"],
        "lag_p50_ms": _ms(lags, 50),
        "lag_p95_ms": _ms(lags, 95),
        "lag_max_ms": _ms(lags, 100),
        "view_calls": writes.calls,
        "view_wcu": round(view_wcu, 1),
        "anchor_wcu": round(writes.anchor_wcu, 1),
        "view_items_written": writes.other_items + writes.anchor_items,
        "anchor_items_written": writes.anchor_items,
        "wcu_per_shop_write": per_write(view_wcu),
        "projection_wcu": round(writes.projection_wcu, 1),
        "numbers_wcu": round(writes.numbers_wcu, 1),
        "numbers_items_written": writes.numbers_items,
        "projection_wcu_per_shop_write": per_write(writes.projection_wcu),
        "numbers_wcu_per_shop_write": per_write(writes.numbers_wcu),
        "estimated_wcu": round(writes.estimated_wcu, 1),
        "estimated_numbers_wcu": round(writes.estimated_numbers_wcu, 1),
        "estimated_projection_wcu_per_shop_write": per_write(writes.estimated_wcu - writes.estimated_numbers_wcu),
        "estimated_numbers_wcu_per_shop_write": per_write(writes.estimated_numbers_wcu),
        "estimated_wcu_per_shop_write": per_write(writes.estimated_wcu),
        "index_entries_written": writes.index_entries,
        **calls_per_record(calls, records),
        **cpu_per_record(
            records,
            process_s=used.bench_s - spent.bench_s,
            handler_s=handled,
            engine_s=used.engine_since(spent),
            hooks_s=writes.hooks_cpu_s + calls.hooks_cpu_s,
        ),
    }


def calls_per_record(calls: CallCount, records: int) -> dict[str, Any]:
    """The sync's DynamoDB calls over a drain: in all and by operation, and per 1,000 stream records."""
    return {
        "calls": calls.total,
        "calls_by_operation": dict(sorted(calls.by_operation.items())),
        "calls_per_1000_records": round(1000.0 * calls.total / records, 1) if records else None,
    }


def cpu_per_record(
    records: int, *, process_s: float, handler_s: float, engine_s: float | None, hooks_s: float
) -> dict[str, Any]:
    """CPU milliseconds per stream record over a drain: this process's (start-up excluded: the poller and Django
    were set up before), the part of it spent while the handler applied batches (``Poller.process``), and the
    engine's (None when the run did not start it). The benchmark's write-counting hooks run inside the handler's
    calls; their CPU is taken out of both and reported on its own."""
    return {
        "process_cpu_ms_per_record": cpu.ms_per(max(0.0, process_s - hooks_s), records),
        "handler_cpu_ms_per_record": cpu.ms_per(max(0.0, handler_s - hooks_s), records),
        "bench_hooks_cpu_ms_per_record": cpu.ms_per(hooks_s, records),
        "engine_cpu_ms_per_sync_record": cpu.ms_per(engine_s, records),
        "cpu_s": {
            "process": round(process_s, 3),
            "handler": round(handler_s, 3),
            "bench_hooks": round(hooks_s, 3),
            "engine": None if engine_s is None else round(engine_s, 2),
        },
    }


def in_bare_putitems(synced: dict[str, Any], before_ms: float, after_ms: float) -> None:
    """The drain's process CPU per record also in bare PutItems' CPU (``bench.cpu.bare_putitem_ms``), timed just
    before and just after the sync stage, outside it, so the stage's own CPU figures hold the drain alone: what gate
    2 judges, since the machine's speed cancels out."""
    process = synced.get("process_cpu_ms_per_record")
    bare = round((before_ms + after_ms) / 2, 4)
    synced["bare_putitem_cpu_ms"] = bare
    synced["process_cpu_in_putitems"] = round(process / bare, 3) if process and bare else None


def _counts(reader: TimedPoller) -> dict[str, int]:
    stats = reader.stats
    return {
        "applied": stats.applied,
        "skipped": stats.skipped,
        "dead_lettered": stats.dead_lettered,
        "batches": stats.batches,
    }


def lag(
    reader: TimedPoller, plan: seeding.SeedPlan, *, samples: int, page: Any, timeout_s: float = 30.0
) -> dict[str, Any]:
    """Domain write (order_place) -> the order is on the pending page. The poller drains in a tight loop, so
    this is the pipeline's own lag, not a poll interval."""
    from shop.orders import OrderLine, order_place

    stock = max((i for i in plan.catalog if isinstance(i, Inventory)), key=lambda i: i.quantity or 0)
    product_id, customer_id = keys.strip(stock.pk), plan.first_customer_id
    assert customer_id is not None
    lags: list[float] = []
    for _ in range(samples):
        order = order_place(customer_id=customer_id, lines=[OrderLine(product_id, 1)])
        oid = keys.strip(order.pk)
        written = time.perf_counter()
        while True:
            reader.drain()
            if page is not None:
                visible = oid in page.get("/orders/pending/").content.decode()
            else:
                visible = any(row.order_id == oid for row in selectors.pending_orders(limit=PAGE_LIMIT).rows)
            if visible:
                lags.append(time.perf_counter() - written)
                break
            if time.perf_counter() - written > timeout_s:
                raise RuntimeError(f"order {oid} not visible on the pending view after {timeout_s}s")
            time.sleep(0.005)
    return {
        "samples": len(lags),
        "seen_on": "page /orders/pending/" if page is not None else "selector",
        "p50_ms": _ms(lags, 50),
        "p95_ms": _ms(lags, 95),
    }
