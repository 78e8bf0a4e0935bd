"""``python -m bench`` (or ``python bench/run.py``): the whole benchmark in one command.

Starts its own DynamoDB Local (in memory), and for each size: fresh tables, the PutItem-per-item baseline on a
sample, batched seeding, the stream drained through the sync handler, every page measured (data layer and,
when the dashboard is installed, through Django) next to the naive way, then the write-to-pending-page lag.
Exits 1 if a page's DynamoDB call count grows with the table size.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python bench/run.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DEFAULT_SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (200, 2_000)
RESULTS_DIR = Path(__file__).resolve().parent / "results"


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(part.replace("_", "")) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes must be comma-separated whole numbers, not {text!r}") from None
    if not sizes or sizes[0] < 10:
        raise argparse.ArgumentTypeError("every size must be at least 10 orders")
    return sizes


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[1])
    p.add_argument("--sizes", type=_sizes, help="orders per run, e.g. 1000,10000 (default 1000,10000,100000)")
    p.add_argument("--quick", action="store_true", help="CI smoke run: sizes 200,2000, fewer repeats")
    p.add_argument("--repeat", type=int, help="requests per page for p50/p95 (default 30; quick 10)")
    p.add_argument("--naive-repeat", type=int, help="runs of each naive way (default 3; quick 1)")
    p.add_argument("--lag-samples", type=int, help="domain writes timed to the pending page (default 30; quick 10)")
    p.add_argument(
        "--shared-scan",
        action="store_true",
        help="answer both Scan + filter baselines with one Scan (same reads and RCU; for big tables)",
    )
    p.add_argument("--putitem-sample", type=int, default=2000, help="items in the PutItem baseline (default 2000)")
    p.add_argument("--workers", type=int, default=8, help="seeding threads (default 8)")
    p.add_argument("--endpoint", help="use this DynamoDB endpoint instead of starting DynamoDB Local")
    p.add_argument("--out", type=Path, default=RESULTS_DIR, help=f"results directory (default {RESULTS_DIR})")
    p.add_argument("--name", help="file stem for the results (default quick, or sizes-<a>-<b>...)")
    return p


def run_size(orders: int, opts: argparse.Namespace, engine: Any, client: Any | None, log: Any) -> dict[str, Any]:
    from bench import env, stages
    from shop import seeding

    config = stages.seed_config(orders)
    plan = seeding.plan(config)
    subjects = stages.choose_subjects(plan)
    log(f"[{orders:,} orders] {plan.size:,} planned entities; subjects {subjects}")
    engine.restart()
    baseline = stages.put_item_baseline(plan, opts.putitem_sample)
    log(f"[{orders:,}] PutItem baseline: {baseline}")
    engine.restart()
    with env.fresh_tables(f"bench{orders}") as names:
        reader = stages.drainer()
        log(f"[{orders:,}] tables {sorted(names.values())}; seeding")
        seeded = stages.seed(plan, workers=opts.workers, baseline=baseline)
        log(f"[{orders:,}] seeding: {seeded}")
        synced = stages.sync(reader)
        log(f"[{orders:,}] sync: {synced}")
        data = stages.data_layer(subjects, repeats=opts.repeat)
        page = stages.pages(client, subjects, repeats=opts.repeat)
        log(f"[{orders:,}] pages measured; naive ways ({opts.naive_repeat}x)")
        naive = stages.naive(subjects, repeats=opts.naive_repeat, shared_scan=opts.shared_scan)
        lag = stages.lag(reader, plan, samples=opts.lag_samples, page=client)
        log(f"[{orders:,}] lag: {lag}")
    return {
        "orders": orders,
        "config": vars(config) | {"until": str(config.until)},
        "items": seeded["batched"]["items"],
        "subjects": vars(subjects),
        "seeding": seeded,
        "sync": synced,
        "data": data,
        "page": page,
        "naive": naive,
        "lag": lag,
    }


def run_benchmark(
    opts: argparse.Namespace,
    *,
    django_ready: bool = False,
    log: Any = lambda text: print(text, flush=True),
    after_size: Any = lambda results: None,
) -> dict[str, Any]:
    """Measure every size in ``opts.sizes``; ``django_ready`` when the caller (pytest) has set Django up;
    ``after_size(results)`` after each size (main writes the results so far, so a long run killed midway leaves
    the sizes it finished)."""
    from bench import env, report, stages

    if not django_ready:
        env.setup_django()
    started = datetime.now(UTC).replace(tzinfo=None, microsecond=0)
    clock = time.perf_counter()
    results: dict[str, Any] = {
        "label": opts.name,
        "started": started.isoformat(),
        "command": " ".join(["python -m bench", *opts.argv]),
        "host": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "sizes": [],
        "modules": {
            name: env.module_available(name) for name in ("adminview.handler", "adminview.selectors", "dashboard")
        },
    }
    with env.dynamodb(opts.endpoint) as engine:
        log(
            f"DynamoDB at {engine.endpoint} ({'our own, fresh per stage' if engine.own else 'given'}); "
            f"modules: {results['modules']}"
        )
        client = stages.staff_client()
        for orders in opts.sizes:
            results["sizes"].append(run_size(orders, opts, engine, client, log))
            results["seconds"] = round(time.perf_counter() - clock, 1)
            results["growth_violations"] = report.growth_violations(results)
            after_size(results)
    results["seconds"] = round(time.perf_counter() - clock, 1)
    results["growth_violations"] = report.growth_violations(results)
    return results


def resolve(argv: list[str] | None) -> argparse.Namespace:
    opts = parser().parse_args(argv)
    opts.argv = list(argv if argv is not None else sys.argv[1:])
    quick = opts.quick
    opts.sizes = opts.sizes or list(QUICK_SIZES if quick else DEFAULT_SIZES)
    opts.repeat = opts.repeat or (10 if quick else 30)
    opts.naive_repeat = opts.naive_repeat or (1 if quick else 3)
    opts.lag_samples = opts.lag_samples or (10 if quick else 30)
    opts.name = opts.name or (
        "quick" if quick and opts.sizes == list(QUICK_SIZES) else "sizes-" + "-".join(str(n) for n in opts.sizes)
    )
    for name in ("repeat", "naive_repeat", "lag_samples", "putitem_sample", "workers"):
        if getattr(opts, name) < 1:
            parser().error(f"--{name.replace('_', '-')} must be at least 1")
    return opts


def main(argv: list[str] | None = None) -> int:
    from bench import report
    from dynamo.local import DynamoDBLocalError

    opts = resolve(argv)
    try:
        results = run_benchmark(opts, after_size=lambda partial: report.write(partial, opts.out, opts.name))
    except DynamoDBLocalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    paths = report.write(results, opts.out, opts.name)
    print(report.markdown(results))
    print("written: " + ", ".join(str(p) for p in paths.values()))
    if results["growth_violations"]:
        print(
            "FAIL: DynamoDB calls per page grow with the table:\n  " + "\n  ".join(results["growth_violations"]),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
