"""The report's sections on what keeping the view costs: CPU per stream record (this process, the handler, the
engine against seeding), view writes per shop item kind, a live order's life in write units, and the machine's
load average at each stage's start and end. Goals are printed beside the figures; none is ever failed."""

from __future__ import annotations

from typing import Any

from bench.report_sections import fmt, measured

WCU_PER_SHOP_WRITE_GOAL = 1.6  # view write units per shop write, by the billing rules
PROCESS_CPU_GOAL_MS = 0.2  # the sync process's CPU per record
HANDLER_CPU_GOAL_MS = 0.12  # the handler's
ENGINE_RATIO_GOAL = 1.0  # the engine's CPU per sync record over its CPU per seeded item


def at_most(value: Any, goal: float, digits: int = 3) -> str:
    if not isinstance(value, int | float):
        return "-"
    return f"{value:.{digits}f} ({'meets' if value <= goal else 'over'} ≤ {goal:g})"


def load_text(load: Any) -> str:
    """A load average as ``1.00 / 0.80 / 0.50`` (1, 5, 15 minutes)."""
    return " / ".join(f"{n:.2f}" for n in load) if isinstance(load, list) and load else "-"


def _load_span(size: dict[str, Any], stage: str) -> str:
    spans = (size.get("stage_load") or {}).get(stage) or {}
    return f"{load_text(spans.get('start'))} → {load_text(spans.get('end'))}" if spans else "-"


def sync_cpu(sizes: list[dict[str, Any]]) -> list[str]:
    """CPU milliseconds per stream record over the sync stage's drain, with their goals and the load average."""
    rows = []
    for size in sizes:
        sync, seeding = size.get("sync") or {}, size.get("seeding") or {}
        if not measured(sync) or "process_cpu_ms_per_record" not in sync:
            continue
        engine, seeded = sync.get("engine_cpu_ms_per_sync_record"), seeding.get("engine_cpu_ms_per_seed_item")
        ratio = (
            engine / seeded if isinstance(engine, int | float) and isinstance(seeded, int | float) and seeded else None
        )
        process, handler = sync["process_cpu_ms_per_record"], sync["handler_cpu_ms_per_record"]
        rows.append(
            f"| {size['orders']:,} | {sync['records']:,} | {at_most(process, PROCESS_CPU_GOAL_MS)} "
            f"| {at_most(handler, HANDLER_CPU_GOAL_MS)} | "
            f"{fmt(sync.get('bare_putitem_cpu_ms'))} | {fmt(sync.get('process_cpu_in_putitems'))} | "
            f"{fmt(sync.get('bench_hooks_cpu_ms_per_record'))} | {fmt(engine)} | {fmt(seeded)} | "
            f"{at_most(ratio, ENGINE_RATIO_GOAL, 2)} | {_load_span(size, 'sync')} |"
        )
    if not rows:
        return []
    return [
        "",
        "## CPU per stream record: the sync against seeding",
        "",
        "Over the sync stage's drain (start-up excluded: Django and the poller were set up before), CPU "
        "milliseconds per stream record: this process's, and the handler's share of it (the CPU spent while "
        "`Poller.process` ran: the handler applying a batch with its worker threads, and the poller's read-ahead "
        "GetRecords that overlap it); the benchmark's own write-counting hooks run inside the handler's calls, so "
        "their CPU is taken out of both and shown apart. A bare boto3 PutItem's CPU, timed just before and after "
        "the drain, is the unit gate 2 judges the process's in (the machine's speed cancels out). The engine's "
        "CPU (our DynamoDB Local, from /proc) per sync "
        "record is set against its CPU per item while seeding: on one machine the sync cannot keep a bulk load's "
        "pace if it costs the engine more per record than the load did per item. Goals (reported, not checked): "
        f"process ≤ {PROCESS_CPU_GOAL_MS:g} ms, handler ≤ {HANDLER_CPU_GOAL_MS:g} ms, engine ratio ≤ "
        f"{ENGINE_RATIO_GOAL:g}. Load average (1 / 5 / 15 minutes) at the sync stage's start and end.",
        "",
        "| orders | records | process ms/record | handler ms/record | bare PutItem ms | process in PutItems "
        "| bench hooks ms/record | engine ms/sync record | engine ms/seeded item | engine ratio | load average |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        *rows,
    ]


def sync_calls(sizes: list[dict[str, Any]]) -> list[str]:
    """The sync's DynamoDB calls per 1,000 stream records over the sync stage's drain, in all and by operation."""
    drained = [size for size in sizes if measured(size.get("sync")) and "calls_by_operation" in size["sync"]]
    if not drained:
        return []
    operations = sorted({name for size in drained for name in size["sync"]["calls_by_operation"]})
    rows = []
    for size in drained:
        sync = size["sync"]
        per = [1000.0 * sync["calls_by_operation"].get(name, 0) / sync["records"] for name in operations]
        rows.append(
            f"| {size['orders']:,} | {sync['records']:,} | {sync['calls']:,} | {fmt(sync['calls_per_1000_records'])} | "
            + " | ".join(fmt(n) for n in per)
            + " |"
        )
    return [
        "",
        "## The sync's DynamoDB calls per 1,000 stream records",
        "",
        "Every call the sync made while it drained the stream (the sync stage), counted through the same botocore "
        "hooks as its write units: the view's client, the sync table's (checkpoints, heartbeat) and the poller's "
        "streams client. Each call counts once, however many attempts it took.",
        "",
        "| orders | records | calls | per 1,000 records | " + " | ".join(operations) + " |",
        "|---:|---:|---:|---:|" + "---:|" * len(operations),
        *rows,
    ]


def _kind_row(name: str, figures: dict[str, Any]) -> str:
    refused = f" ({figures['not_applied']:,} not applied)" if figures.get("not_applied") else ""
    return (
        f"| {name} | {figures['records']:,}{refused} | {figures['view_items']:,} | {figures['index_entries']:,} | "
        f"{fmt(figures['units'])} | {fmt(figures['units_per_record'])} |"
    )


def by_kind(sizes: list[dict[str, Any]], skipped: set[str]) -> list[str]:
    """Per shop item kind, applied alone (a sample); beside it the sync's measured, batched totals."""
    lines = [
        "",
        "## View writes per shop item kind",
        "",
        "The first stream records of the sync (each source's in stream order) folded again one at a time by the "
        "product's pure core from a view held in memory (`bench/by_kind.py`), each record's writes weighed as the "
        "sync sends them: view items written, index entries (one per index whose key pair an item carries) and "
        "write units by DynamoDB's billing rules. Kinds are the `EntityType` of the item a record changed. "
        "*Applied alone* is an upper bound: in a batch the records of one order share one anchor write and the "
        "sums merge; the sync's measured, batched figures over the whole stream are in the last row (write units "
        f"by the same rules; goal ≤ {WCU_PER_SHOP_WRITE_GOAL:g} per shop write, reported, not checked).",
    ]
    shown = False
    for size in sizes:
        found, sync = size.get("by_kind") or {}, size.get("sync") or {}
        if not measured(found) or "kinds" not in found:
            if isinstance(found.get("skipped"), str):
                skipped.add(f"view writes per kind at {size['orders']:,}: {found['skipped']}")
            continue
        shown = True
        total = found["total"]
        lines += [
            "",
            f"{size['orders']:,} orders, the first {total['records']:,} stream records:",
            "",
            "| kind | records | view items | index entries | write units | units per record |",
            "|---|---:|---:|---:|---:|---:|",
            *(_kind_row(f"`{kind}`", figures) for kind, figures in found["kinds"].items()),
            _kind_row("**all, applied alone**", total),
        ]
        if measured(sync) and "estimated_wcu" in sync:
            lines.append(
                f"| **all, measured batched** (whole stream) | {sync['records']:,} | {sync['view_items_written']:,} | "
                f"{fmt(sync.get('index_entries_written'))} | {fmt(sync['estimated_wcu'])} | "
                f"{at_most(sync.get('estimated_wcu_per_shop_write'), WCU_PER_SHOP_WRITE_GOAL, 2)} |"
            )
    return lines if shown else []


def order_life(sizes: list[dict[str, Any]], skipped: set[str]) -> list[str]:
    """Write units per order of each step of a live order's life and of its return, the view's beside the source's."""
    rows, per_returns_write = [], []
    for size in sizes:
        run = size.get("order_life") or {}
        if measured(run) and run.get("return_wcu_per_returns_write") is not None:
            per_returns_write.append(
                f"\nAt {size['orders']:,} orders, the view's write units per item the returns service wrote (a "
                f"return's whole life, by the billing rules): {fmt(run['return_wcu_per_returns_write'])}."
            )
        if not measured(run) or "steps" not in run:
            if isinstance(run.get("skipped"), str):
                skipped.add(f"a live order's life at {size['orders']:,}: {run['skipped']}")
            continue
        orders = run["orders"]
        for title, steps_key, life_key, source in (
            ("life", "steps", "life", "shop"),
            ("return", "return_steps", "return_life", "returns"),
        ):
            steps = run.get(steps_key) or {}
            for name, step in steps.items():
                rows.append(
                    _life_row(
                        size["orders"],
                        name,
                        source,
                        step["records"] / orders,
                        step["view"],
                        step[source],
                        step["failed"],
                    )
                )
            if steps:
                records = sum(step["records"] for step in steps.values()) / orders
                total = run[life_key]
                rows.append(
                    _life_row(
                        size["orders"],
                        f"**{title}** ({orders} orders)",
                        source,
                        records,
                        total["view"],
                        total[source],
                        0,
                    )
                )
    if not rows:
        return []
    return [
        "",
        "## A live order's life",
        "",
        "Orders placed for one customer (`order_place`: 2 lines, 1 payment), shipped and delivered by a staff "
        "member (`order_ship`, `order_deliver`: each with its audit entry); then one unit of each returned through "
        "the returns service (requested, approved, received, refunded). Live: each change synced on its own, the "
        "poller drained after each order's step (`bench/order_life.py`). Per order: stream records, and write "
        "units by DynamoDB's billing rules of the view (what the sync wrote) and of the source table that changed "
        "(what `shop/orders.py` or `returns/services.py` wrote; an Update is weighed by the key and values it "
        "sends, so a change to an item already in an index weighs less than DynamoDB bills), then both as "
        "DynamoDB Local reports them (it reports about 2 units for a whole transaction).",
        "",
        "| orders | step | source | records per order | view WCU per order | source WCU per order | "
        "view / source | reported: view / source |",
        "|---:|---|---|---:|---:|---:|---:|---|",
        *rows,
        *per_returns_write,
    ]


def _life_row(
    orders: int, step: str, source: str, records: float, view: dict[str, Any], wrote: dict[str, Any], failed: int
) -> str:
    ratio = view["wcu_per_order"] / wrote["wcu_per_order"] if wrote["wcu_per_order"] else None
    note = f" ({failed} failed)" if failed else ""
    return (
        f"| {orders:,} | {step}{note} | {source} | {records:.1f} | {fmt(view['wcu_per_order'])} | "
        f"{fmt(wrote['wcu_per_order'])} | {fmt(ratio)} | "
        f"{fmt(view['reported_wcu_per_order'])} / {fmt(wrote['reported_wcu_per_order'])} |"
    )


def stage_loads(sizes: list[dict[str, Any]]) -> list[str]:
    """The machine's load average at each stage's start and end: other work shares every CPU and time figure."""
    rows = [
        f"| {size['orders']:,} | {stage} | {load_text(span.get('start'))} | {load_text(span.get('end'))} |"
        for size in sizes
        for stage, span in (size.get("stage_load") or {}).items()
    ]
    if not rows:
        return []
    return [
        "",
        "## Load average per stage",
        "",
        "The machine's load average (1 / 5 / 15 minutes) when each stage started and ended.",
        "",
        "| orders | stage | at the start | at the end |",
        "|---:|---|---|---|",
        *rows,
    ]
