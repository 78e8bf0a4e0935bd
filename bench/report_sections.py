"""The report's sections on the sync's pace and upkeep, the category backfill and the lag with the sync following:
figures set beside the goals they are compared with (reported, never failed)."""

from __future__ import annotations

from typing import Any

# Goals, as ratios to the seeding pace of the same run (items/s): the sync keeps up with a bulk load, a full
# rebuild is at least as fast as loading the data was, a verify (reads only) three times as fast.
PACE_GOALS = {"sync": 1.0, "rebuild": 1.0, "verify": 3.0}


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.1f}" if value >= 10 else f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def measured(stage: Any) -> bool:
    return isinstance(stage, dict) and not isinstance(stage.get("skipped"), str)


def _ratio(rate: Any, base: Any) -> float | None:
    return rate / base if isinstance(rate, int | float) and isinstance(base, int | float) and base else None


def _against(rate: Any, base: Any, goal: float) -> str:
    ratio = _ratio(rate, base)
    if ratio is None:
        return "-"
    return f"{fmt(rate)} ({ratio:.2f}x, {'meets' if ratio >= goal else 'below'} {goal:g}x)"


def pace(sizes: list[dict[str, Any]]) -> list[str]:
    """The sync's records/s and the repair commands' shop items/s against the seeding stage's items/s."""
    lines = [
        "",
        "## Pace against seeding (same run)",
        "",
        "Each rate over the seeding stage's batched items/s, with its goal: the sync's records/s at least 1x (it "
        "keeps up with a bulk load), a full rebuild's shop items/s at least 1x, a verify's at least 3x (reported, "
        "not checked).",
        "",
        "| orders | seeding items/s | sync records/s | rebuild shop items/s | verify shop items/s |",
        "|---:|---:|---:|---:|---:|",
    ]
    for size in sizes:
        seeding = size.get("seeding") or {}
        if not measured(seeding):
            continue
        base = seeding["batched"]["items_per_s"]
        sync, repair = size.get("sync") or {}, size.get("repair") or {}
        cells = [_against(sync.get("records_per_s"), base, PACE_GOALS["sync"]) if measured(sync) else "-"]
        for name in ("rebuild", "verify"):
            run = repair.get(name) if measured(repair) else None
            cells.append(_against(run.get("items_per_s"), base, PACE_GOALS[name]) if run else "-")
        lines.append(f"| {size['orders']:,} | {fmt(base)} | " + " | ".join(cells) + " |")
    return lines


def backfill(sizes: list[dict[str, Any]], skipped: set[str]) -> list[str]:
    lines = [
        "",
        "## The category backfill",
        "",
        "`manage.py backfill order-item-category` in a child process over a shop seeded with a share of its orders "
        "as before categories (their items without `Category`), then the sync carrying the changes into the view. "
        "Seconds: the command's wall time (Python start-up included) and the backfill's own; RCU / WCU as the "
        "backfill reports them (its Scan, its product reads, its updates); the sync's records and view WCU "
        "(projection / numbers) to follow; units the view counts as `uncategorized` before and after.",
        "",
        "| orders | items scanned | candidates | changed (planned) | left uncategorized | seconds (own) | "
        "scanned items/s | RCU | WCU | sync records | sync s | view WCU (projection / numbers) | "
        "uncategorized units before → after |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for size in sizes:
        run = size.get("backfill") or {}
        if not measured(run):
            if run.get("skipped"):
                skipped.add(f"category backfill at {size['orders']:,}: {run['skipped']}")
            continue
        synced, units = run["sync"], run["uncategorized_units"]
        lines.append(
            f"| {size['orders']:,} | {fmt(run.get('scanned'))} | {fmt(run.get('candidates'))} | "
            f"{fmt(run.get('changed'))} ({fmt(run['planned'])}) | {fmt(run.get('unresolved'))} | "
            f"{fmt(run['seconds'])} ({fmt(run.get('backfill_seconds'))}) | {fmt(run.get('items_per_s'))} | "
            f"{fmt(run.get('rcu'))} | {fmt(run.get('wcu'))} | {fmt(synced['records'])} | "
            f"{fmt(synced['seconds'])} | {fmt(synced['view_wcu'])} ({fmt(synced['projection_wcu'])} / "
            f"{fmt(synced['numbers_wcu'])}) | {fmt(units['before'])} → {fmt(units['after'])} |"
        )
    return lines


def _lag(figures: dict[str, Any]) -> str:
    if not figures.get("samples"):
        return "-"
    goal = figures.get("goal_p95_ms")
    verdict = f"{'meets' if figures['meets'] else 'over'} {goal / 1000.0:g} s; " if goal is not None else ""
    return f"{fmt(figures['p50_ms'])} / {fmt(figures['p95_ms'])} ({verdict}{figures['samples']} samples)"


WRITER_SPEEDS = {"half": "half the seeding pace", "full": "full speed"}


def following(sizes: list[dict[str, Any]], skipped: set[str]) -> list[str]:
    lines = [
        "",
        "## Write-to-page lag with the sync following",
        "",
        "`order_place` until the order is on `/orders/pending/`, with the product's poller following the stream in "
        "a thread (its poll interval included), idle and then beside `manage.py seed_shop` (a child process, "
        "another seed) adding to the same tables: held to half the seeding stage's items/s (`--rate`), then at "
        "full speed. Beside a writer an order is placed every few hundred ms while it writes, each timed until the "
        "page shows it, so the backlog the writer leaves the sync counts. Goals for p95 (reported, not checked): "
        "1 s idle, 2 s beside the writer at half speed. The pipeline's own lag (the poller draining in a tight "
        "loop) is in the sync table above.",
        "",
        "| orders | poll interval s | idle p50 / p95 ms | writer | rate set items/s | writer's items/s (orders) | "
        "beside it p50 / p95 ms | not seen |",
        "|---:|---:|---|---|---:|---:|---|---:|",
    ]
    for size in sizes:
        run = size.get("follow_lag") or {}
        if not measured(run):
            if run.get("skipped"):
                skipped.add(f"lag with the sync following at {size['orders']:,}: {run['skipped']}")
            continue
        head = f"| {size['orders']:,} | {fmt(run['poll_interval_s'])} | {_lag(run['idle'])} |"
        for speed, beside in run["under_load"].items():
            writer = beside["writer"]
            lines.append(
                f"{head} {WRITER_SPEEDS.get(speed, speed)} | {fmt(beside['rate_items_per_s'])} | "
                f"{fmt(writer['items_per_s'])} ({fmt(writer['orders'])}, exit {writer['exit']}) | "
                f"{_lag(beside['loaded'])} | {fmt(beside['loaded'].get('unseen'))} |"
            )
            head = "| | | |"
    return lines


def _per_item_ms(seconds: Any, items: Any) -> str:
    if not isinstance(seconds, int | float) or not isinstance(items, int | float) or not items:
        return "-"
    return f"{1000.0 * seconds / items:.2f}"


def cpu_per_item(sizes: list[dict[str, Any]]) -> list[str]:
    """CPU milliseconds per shop item (per stream record for the sync): the engine's and the writer's own. On one
    machine these bound each pace: a stage that needs more CPU per item than seeding did cannot run as fast."""
    rows: list[str] = []
    for size in sizes:
        items, spent = size.get("items"), size.get("stage_cpu", {})
        seeding, sync = spent.get("seeding") or {}, spent.get("sync") or {}
        records = (size.get("sync") or {}).get("records") if measured(size.get("sync")) else None
        repair = size["repair"] if measured(size.get("repair")) else {}
        cells = [
            f"{_per_item_ms(seeding.get('engine_s'), items)} / {_per_item_ms(seeding.get('bench_s'), items)}",
            f"{_per_item_ms(sync.get('engine_s'), records)} / {_per_item_ms(sync.get('bench_s'), records)}",
        ]
        for name in ("rebuild", "verify"):
            used = (repair.get(name) or {}).get("cpu") or {}
            cells.append(f"{_per_item_ms(used.get('engine_s'), items)} / {_per_item_ms(used.get('command_s'), items)}")
        if any(cell != "- / -" for cell in cells):
            rows.append(f"| {size['orders']:,} | " + " | ".join(cells) + " |")
    if not rows:
        return []
    return [
        "",
        "## CPU per item: the engine / the writer",
        "",
        "CPU milliseconds per shop item (the sync: per stream record) spent by the engine (our own DynamoDB Local) and "
        "by the process doing the work (the benchmark's own for seeding and the sync; the command's for rebuild and "
        "verify), read from /proc. Every process shares the machine's cores, so a stage that needs more CPU per "
        "item than seeding did cannot keep its pace.",
        "",
        "| orders | seeding | sync | rebuild | verify |",
        "|---:|---:|---:|---:|---:|",
        *rows,
    ]


def stage_times(sizes: list[dict[str, Any]]) -> list[str]:
    """Seconds each stage took (what a run's length is made of)."""
    names: list[str] = []
    for size in sizes:
        names += [name for name in size.get("stage_seconds", {}) if name not in names]
    if not names:
        return []
    lines = ["", "## Stage seconds", "", "| orders | " + " | ".join(names) + " |", "|---:|" + "---:|" * len(names)]
    for size in sizes:
        spent = size.get("stage_seconds", {})
        lines.append(f"| {size['orders']:,} | " + " | ".join(fmt(spent.get(name)) for name in names) + " |")
    return lines
