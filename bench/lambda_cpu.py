"""The Lambda handler's CPU per stream record, on recorded events of both streams.

A seed and a few live orders' lives (placed, shipped, delivered, returned, refunded: ``bench.order_life``) are
written to fresh tables; the poller drains both streams and keeps every record in the shape Lambda delivers
(``adminview.sync.poller.lambda_shape``). The records are written to a JSON file, the view and its sync table are
emptied, and the file is read back and fed to ``adminview.sync.handler.handler`` in events of ``--batch`` records
per stream, as Lambda's event source mapping would (default batch size 100). The figure is this process's CPU
(user + system, every thread: the handler applies a batch with worker threads) spent inside the handler, divided
by the records it was given; DynamoDB Local's CPU is not in it.

A machine's speed moves 2x within an hour, so the figure is also given as a ratio: to a bare boto3 conditional
PutItem's CPU, measured in the same run against the same engine (``bench.cpu.bare_putitem_ms``). From it: records
a second per vCPU, the ``MemorySize`` that applies a partition's write ceiling on one shard (``pace``), and what the
view costs per million shop writes beside what the shop's own writes cost (``cost``, AWS's on-demand prices below).

    python -m bench.lambda_cpu --orders 2000 --out bench/results/lambda-2000.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

DEFAULT_BATCH = 100  # Lambda's default BatchSize for a DynamoDB event source
TEMPLATE = Path(__file__).resolve().parents[1] / "deploy" / "template.yaml"
FULL_VCPU_MB = 1769  # Lambda gives one full vCPU at this memory; the handler, one Python process, uses one at most
PARTITION_WRITES_PER_S = 1000  # a table partition's write ceiling: the busiest stream shard's records/s at most
# AWS's on-demand prices (us-east-1, 2026): a write request unit, a stream read request (GetRecords; those Lambda's
# event source mapping makes are not billed), a Lambda GB-second (arm64, as the template runs it) and a request
WRITE_UNIT_USD = 0.625 / 1e6
STREAM_READ_USD = 0.02 / 1e5
LAMBDA_GB_S_USD = 0.0000133334
LAMBDA_REQUEST_USD = 0.20 / 1e6


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.lambda_cpu", description=__doc__.split("\n\n")[0])
    p.add_argument("--orders", type=int, default=2000, help="orders seeded (default 2000)")
    p.add_argument("--lives", type=int, default=50, help="live orders taken through their life (default 50)")
    p.add_argument("--batch", type=int, default=DEFAULT_BATCH, help=f"records per event (default {DEFAULT_BATCH})")
    p.add_argument("--putitem-sample", type=int, default=2000, help="bare PutItems timed (default 2000)")
    p.add_argument("--events", type=Path, help="where the recorded events go (default: a temporary file)")
    p.add_argument("--out", type=Path, help="write the figures here as JSON too")
    return p


def record(orders: int, lives: int, events: Path) -> dict[str, Any]:
    """Seed, take ``lives`` orders through their life, drain both streams keeping every record; write them. Also
    the source tables' write units (by the billing rules) and the drain's GetRecords calls."""
    from bench import order_life, stages
    from bench.sync import TimedPoller, counting_calls, counting_writes
    from returns.models import ReturnsItem
    from shop import seeding
    from shop.models import ShopItem

    plan = seeding.plan(stages.seed_config(orders))
    reader = TimedPoller.for_sources(keep=10**9)
    with counting_writes(ShopItem) as shop, counting_writes(ReturnsItem) as returns:
        seeding.run(plan, workers=8, extensions=stages.seed_extensions())
        with counting_calls([reader.client]) as reads:
            reader.drain()
        order_life.order_life(reader, plan, orders=lives)
        with counting_calls([reader.client]) as more_reads:
            reader.drain()
    by_stream = reader.kept_by_stream
    events.write_text(json.dumps(by_stream))
    return {
        "records_by_table": {arn.split("/")[1]: len(kept) for arn, kept in by_stream.items()},
        "source_wcu": round(shop.estimated_wcu + returns.estimated_wcu, 1),
        "get_records": reads.by_operation["GetRecords"] + more_reads.by_operation["GetRecords"],
    }


def empty_view() -> None:
    from adminview.tables import ADMIN_VIEW_TABLE, SYNC_TABLE
    from dynamo.tables import delete_table, ensure_table

    for spec in (ADMIN_VIEW_TABLE, SYNC_TABLE):
        delete_table(spec.model)
        ensure_table(spec)


def replay(events: Path, batch: int) -> dict[str, Any]:
    """Feed the recorded records to the handler, ``batch`` per event, stream by stream, timing its CPU (the
    benchmark's hooks counting the view's writes and calls taken out)."""
    from adminview.sync.handler import handler
    from adminview.tables import SyncItem, ViewItem
    from bench.sync import counting_calls, counting_view_writes
    from dynamo.client import client_of

    by_stream: dict[str, list[dict[str, Any]]] = json.loads(events.read_text())
    cpu_s = wall_s = 0.0
    records = failed = 0
    with (
        counting_view_writes() as writes,
        counting_calls([client_of(ViewItem), client_of(SyncItem)], (ViewItem, SyncItem)) as calls,
    ):
        for kept in by_stream.values():
            for start in range(0, len(kept), batch):
                event = {"Records": kept[start : start + batch]}
                began_cpu, began = time.process_time(), time.perf_counter()
                response = handler(event, None)
                cpu_s += time.process_time() - began_cpu
                wall_s += time.perf_counter() - began
                records += len(event["Records"])
                failed += len(response["batchItemFailures"])
    cpu_s = max(0.0, cpu_s - writes.hooks_cpu_s - calls.hooks_cpu_s)
    return {
        "view_wcu": round(writes.estimated_wcu, 1),
        "calls_per_1000_records": round(1000 * calls.total / records, 1) if records else None,
        "calls_by_operation": dict(sorted(calls.by_operation.items())),
        "records": records,
        "failed": failed,
        "handler_cpu_ms_per_record": round(1000 * cpu_s / records, 3) if records else None,
        "handler_wall_ms_per_record": round(1000 * wall_s / records, 3) if records else None,
        "batch": batch,
    }


def template_memory_mb(template: Path = TEMPLATE) -> int:
    """The sync function's ``MemorySize`` in the SAM template."""
    found = re.search(r"^\s*MemorySize:\s*(\d+)", template.read_text(), re.MULTILINE)
    if found is None:
        raise ValueError(f"no MemorySize in {template}")
    return int(found.group(1))


def pace(handler_ms: float, putitem_ms: float, memory_mb: int) -> dict[str, Any]:
    """The handler's pace from its CPU per record: as bare PutItems' worth (the machine's speed cancels out), records
    a second per vCPU and at ``memory_mb``, and the memory (or, past one vCPU, the ``ParallelizationFactor``) that
    applies a partition's write ceiling on one shard."""
    vcpus_needed = PARTITION_WRITES_PER_S * handler_ms / 1000
    return {
        "putitem_cpu_ms": putitem_ms,
        "handler_cpu_in_putitems": round(handler_ms / putitem_ms, 3),
        "records_per_s_per_vcpu": round(1000 / handler_ms),
        "template_memory_mb": memory_mb,
        "records_per_s_at_template_memory": round(1000 / handler_ms * min(1.0, memory_mb / FULL_VCPU_MB)),
        "memory_mb_for_partition_pace": min(FULL_VCPU_MB, math.ceil(FULL_VCPU_MB * vcpus_needed)),
        "parallelization_factor_for_partition_pace": max(1, math.ceil(vcpus_needed)),
    }


def cost(figures: dict[str, Any], memory_mb: int) -> dict[str, Any]:
    """Dollars per million shop writes (each one stream record) of the view, beside the source tables' own writes:
    the view's write units, stream reads (a poller's GetRecords; none billed under Lambda), and Lambda's GB-seconds
    at ``memory_mb`` over the handler's wall time here and its requests, one per batch."""
    records = figures["records"]
    per_million = 1e6 / records
    view = figures["view_wcu"] * per_million * WRITE_UNIT_USD
    lambda_s = figures["handler_wall_ms_per_record"] / 1000 * 1e6
    compute = lambda_s * memory_mb / 1024 * LAMBDA_GB_S_USD + 1e6 / figures["batch"] * LAMBDA_REQUEST_USD
    shop = figures["source_wcu"] * per_million * WRITE_UNIT_USD
    return {
        "view_wcu_per_shop_write": round(figures["view_wcu"] / records, 3),
        "shop_wcu_per_write": round(figures["source_wcu"] / records, 3),
        "view_writes_usd": round(view, 3),
        "lambda_usd": round(compute, 3),
        "poller_stream_reads_usd": round(figures["get_records"] * per_million * STREAM_READ_USD, 4),
        "view_usd_per_million_shop_writes": round(view + compute, 3),
        "shop_writes_usd_per_million": round(shop, 3),
        "view_to_shop_write_cost": round((view + compute) / shop, 3) if shop else None,
    }


def main(argv: list[str] | None = None) -> int:
    opts = parser().parse_args(argv)
    from bench import cpu, env
    from dynamo import conf

    events = opts.events or Path(tempfile.mkdtemp(prefix="lambda-events-")) / "events.json"
    memory_mb = template_memory_mb()
    with env.dynamodb():
        env.setup_django()
        with env.fresh_tables("lambda"):
            recorded = record(opts.orders, opts.lives, events)
            empty_view()
            figures = {"orders": opts.orders, "anchor_writes": conf.anchor_writes(), **recorded}
            figures |= replay(events, opts.batch)
            figures["pace"] = pace(
                figures["handler_cpu_ms_per_record"], cpu.bare_putitem_ms(opts.putitem_sample), memory_mb
            )
            figures["cost"] = cost(figures, memory_mb)
    figures["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(figures, indent=2))
    if opts.out:
        opts.out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if figures["failed"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
