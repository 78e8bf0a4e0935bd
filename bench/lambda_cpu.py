"""The Lambda handler's CPU per stream record, on recorded events of both streams.

A seed and a few live orders' lives (placed, shipped, delivered, returned, refunded: ``bench.order_life``) are
written to fresh tables; the poller drains both streams and keeps every record in the shape Lambda delivers
(``adminview.sync.poller.lambda_shape``). The records are written to a JSON file, the view and its sync table are
emptied, and the file is read back and fed to ``adminview.sync.handler.handler`` in events of ``--batch`` records
per stream, as Lambda's event source mapping would (default batch size 100). The figure is this process's CPU
(user + system, every thread: the handler applies a batch with worker threads) spent inside the handler, divided
by the records it was given; DynamoDB Local's CPU is not in it.

    python -m bench.lambda_cpu --orders 2000 --out bench/results/lambda-2000.json
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

DEFAULT_BATCH = 100  # Lambda's default BatchSize for a DynamoDB event source


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.lambda_cpu", description=__doc__.split("\n\n")[0])
    p.add_argument("--orders", type=int, default=2000, help="orders seeded (default 2000)")
    p.add_argument("--lives", type=int, default=50, help="live orders taken through their life (default 50)")
    p.add_argument("--batch", type=int, default=DEFAULT_BATCH, help=f"records per event (default {DEFAULT_BATCH})")
    p.add_argument("--events", type=Path, help="where the recorded events go (default: a temporary file)")
    p.add_argument("--out", type=Path, help="write the figures here as JSON too")
    return p


def record(orders: int, lives: int, events: Path) -> dict[str, int]:
    """Seed, take ``lives`` orders through their life, drain both streams keeping every record; write them."""
    from bench import order_life, stages
    from bench.sync import TimedPoller
    from shop import seeding

    plan = seeding.plan(stages.seed_config(orders))
    seeding.run(plan, workers=8, extensions=stages.seed_extensions())
    reader = TimedPoller.for_sources(keep=10**9)
    reader.drain()
    order_life.order_life(reader, plan, orders=lives)
    reader.drain()
    by_stream = reader.kept_by_stream
    events.write_text(json.dumps(by_stream))
    return {arn.split("/")[1]: len(kept) for arn, kept in by_stream.items()}


def empty_view() -> None:
    from adminview.tables import ADMIN_VIEW_TABLE, SYNC_TABLE
    from dynamo.tables import delete_table, ensure_table

    for spec in (ADMIN_VIEW_TABLE, SYNC_TABLE):
        delete_table(spec.model)
        ensure_table(spec)


def replay(events: Path, batch: int) -> dict[str, Any]:
    """Feed the recorded records to the handler, ``batch`` per event, stream by stream, timing its CPU."""
    from adminview.sync.handler import handler

    by_stream: dict[str, list[dict[str, Any]]] = json.loads(events.read_text())
    cpu_s = wall_s = 0.0
    records = failed = 0
    for kept in by_stream.values():
        for start in range(0, len(kept), batch):
            event = {"Records": kept[start : start + batch]}
            began_cpu, began = time.process_time(), time.perf_counter()
            response = handler(event, None)
            cpu_s += time.process_time() - began_cpu
            wall_s += time.perf_counter() - began
            records += len(event["Records"])
            failed += len(response["batchItemFailures"])
    return {
        "records": records,
        "failed": failed,
        "handler_cpu_ms_per_record": round(1000 * cpu_s / records, 3) if records else None,
        "handler_wall_ms_per_record": round(1000 * wall_s / records, 3) if records else None,
        "batch": batch,
    }


def main(argv: list[str] | None = None) -> int:
    opts = parser().parse_args(argv)
    from bench import env

    events = opts.events or Path(tempfile.mkdtemp(prefix="lambda-events-")) / "events.json"
    with env.dynamodb():
        env.setup_django()
        with env.fresh_tables("lambda"):
            streams = record(opts.orders, opts.lives, events)
            empty_view()
            figures = {"orders": opts.orders, "records_by_table": streams, **replay(events, opts.batch)}
    figures["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(figures, indent=2))
    if opts.out:
        opts.out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if figures["failed"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
