"""The sync stages: the shop table's stream read by the product's own poller (``adminview.poller``: every shard,
expired iterators renewed from its checkpoint) into the same code as the Lambda handler.

Measured over the whole stream: records/s, each record's lag (applied minus ``ApproximateCreationDateTime``),
and the write units the view table consumed per shop-table write, counted from ``ReturnConsumedCapacity`` on
every write call, with the share spent writing anchors (the order summaries and profiles that also carry the
sequence numbers which make replays harmless).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from adminview import selectors
from adminview.models import ORDER_SK, PROFILE_SK, ViewItem
from adminview.poller import Poller
from bench.measure import percentile
from dynamo import ddb_json
from dynamo.client import client_of
from dynamo.instrumentation import recording
from shop import keys, seeding
from shop.models import Inventory

PAGE_LIMIT = 50
_KIND = "bench_view_write_kind"


class TimedPoller(Poller):
    """The product's poller, noting when each record was applied (for lag over the whole stream)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lags_s: list[float] = []

    def process(self, records: list[dict[str, Any]], *, shard_id: str | None = None) -> None:
        super().process(records, shard_id=shard_id)
        now = time.time()
        for record in records:
            created = record["dynamodb"].get("ApproximateCreationDateTime")
            if isinstance(created, int | float):
                self.lags_s.append(max(0.0, now - float(created)))

    def drain(self) -> int:
        """Apply every record the stream holds now; returns how many were read."""
        before = self.stats.records
        self.run(follow=False)
        return self.stats.records - before


def poller() -> TimedPoller:
    return TimedPoller.for_shop_table()


@dataclass
class ViewWrites:
    """Write units the view table consumed, split into anchor writes and the rest. A call is classed by the
    keys it writes (an anchor's SK is ``#order`` or ``#profile``); a call that mixes both splits its units by
    count."""

    anchor_wcu: float = 0.0
    anchor_items: int = 0
    other_wcu: float = 0.0
    other_items: int = 0


_WRITES = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")


def written_keys(operation: str, params: dict[str, Any], table: str) -> list[str]:
    """The sort keys a write call writes to ``table``."""
    if operation == "BatchWriteItem":
        return [
            _sk(r.get("PutRequest", {}).get("Item") or r.get("DeleteRequest", {}).get("Key"))
            for r in (params.get("RequestItems") or {}).get(table, [])
        ]
    if operation == "TransactWriteItems":
        actions: list[dict[str, Any]] = [next(iter(t.values()), {}) for t in params.get("TransactItems", [])]
        return [_sk(a.get("Item") or a.get("Key")) for a in actions if a.get("TableName") == table]
    if params.get("TableName") != table:
        return []
    return [_sk(params.get("Item") or params.get("Key"))]


def _sk(item: dict[str, Any] | None) -> str:
    return ddb_json.string(item, "SK") or ""


@contextmanager
def counting_view_writes() -> Iterator[ViewWrites]:
    """Count the items and consumed WCU of every write to the view table, through botocore's event hooks."""
    client, table = client_of(ViewItem), str(ViewItem.Meta.table_name)
    counted = ViewWrites()
    events = client.meta.events

    def classify(params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if model.name in _WRITES:
            sks = written_keys(model.name, params, table)
            context[_KIND] = (sum(1 for sk in sks if sk in (ORDER_SK, PROFILE_SK)), len(sks))

    def consumed(parsed: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        marks, items = context.get(_KIND, (0, 0))
        if not items:
            return
        entries = parsed.get("ConsumedCapacity") or []
        entries = entries if isinstance(entries, list) else [entries]
        units = sum(float(c.get("CapacityUnits", 0.0)) for c in entries if c.get("TableName", table) == table)
        counted.anchor_wcu += units * marks / items
        counted.other_wcu += units * (items - marks) / items
        counted.anchor_items += marks
        counted.other_items += items - marks

    events.register("before-parameter-build.dynamodb", classify)
    events.register("after-call.dynamodb", consumed)
    try:
        yield counted
    finally:
        events.unregister("before-parameter-build.dynamodb", classify)
        events.unregister("after-call.dynamodb", consumed)


def _ms(values_s: list[float], q: float) -> float:
    return round((percentile(values_s, q) or 0.0) * 1000.0, 1)


def sync(reader: TimedPoller) -> dict[str, Any]:
    """Drain the whole stream (everything seeding wrote) through the poller. The drain starts after seeding
    finished, so a record's lag here is mostly the time it waited for the drain to reach it (a backlog)."""
    with recording() as log, counting_view_writes() as writes:
        started = time.perf_counter()
        records = reader.drain()
        seconds = time.perf_counter() - started
    stats, table = reader.stats, str(ViewItem.Meta.table_name)
    view_wcu = writes.anchor_wcu + writes.other_wcu
    return {
        "records": records,
        "seconds": round(seconds, 3),
        "records_per_s": round(records / seconds, 1) if seconds else None,
        "applied": stats.applied,
        "skipped": stats.skipped,
        "failed": stats.dead_lettered,
        "batches": stats.batches,
        "lag_p50_ms": _ms(reader.lags_s, 50),
        "lag_p95_ms": _ms(reader.lags_s, 95),
        "lag_max_ms": _ms(reader.lags_s, 100),
        "view_calls": sum(1 for c in log.calls if c.table == table),
        "view_wcu": round(view_wcu, 1),
        "anchor_wcu": round(writes.anchor_wcu, 1),
        "view_items_written": writes.other_items + writes.anchor_items,
        "anchor_items_written": writes.anchor_items,
        "wcu_per_shop_write": round(view_wcu / records, 3) if records else None,
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
