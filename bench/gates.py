"""The benchmark's regression gates: figures of a run, each set against a bound that carries a margin, so a
slower build fails ``python -m bench --quick`` (``bench.run.failures``) and the report lists every gate.

Bounds come three ways. A pace is set against another figure of the same run (the rebuild's items/s and the
sync's records/s against seeding's items/s), so the machine's speed cancels out. Write units per record and the
lag beside a half-speed writer are set against fixed bounds: write units are weighed from what was sent, and the
lag is what staff feel. Calls and CPU per record and a page's time are set against figures committed in
``gates.json`` (recorded from a chosen run with ``python -m bench.gates --record RESULTS.json``), never against the
results file every run overwrites.

Rates, CPU and write units are judged at the run's largest size (2,000 orders in a quick run), where start-up and
fixed costs weigh least; committed figures at each size the bounds file holds.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.report_upkeep import WCU_PER_SHOP_WRITE_GOAL

BOUNDS_FILE = Path(__file__).resolve().with_name("gates.json")
REBUILD_MARGIN = 0.5  # the rebuild's items/s may fall this far below seeding's before it fails (bench/README.md)
# over the committed CPU per record: CPU time moves far less with load than wall time, but the same code has read
# 0.58 ms alone and 0.775 ms at a load of 6 to 11 (a third more)
CPU_MARGIN = 0.5
SYNC_PACE = 1.0  # the sync's records/s at least seeding's items/s of the same run (the contract)
HALF_SPEED_LAG_P95_MS = 2000.0  # the lag's p95 beside a writer at half of seeding's pace (the contract)
WCU_PER_SHOP_WRITE = 2.6
CALLS_MARGIN = 0.2  # over the committed calls per 1,000 stream records
# over the committed p50 through Django: a 2-core machine's speed moves by about 2x within an hour (bench/README.md,
# gate 6), and the regressions this gate is for cost more (a page at a quarter of its throughput is 4x)
PAGE_TIME_MARGIN = 1.5


@dataclass(frozen=True)
class Gate:
    """One figure against its bound. ``at_most``: the figure must stay at or under the bound (else at or over);
    no figure or no bound: not measured, never a failure."""

    number: int
    name: str
    where: str
    figure: float | None
    bound: float | None
    margin: str  # how the bound was set, its margin included
    at_most: bool = True
    unit: str = ""
    details: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        if self.figure is None or self.bound is None:
            return "not measured"
        held = self.figure <= self.bound if self.at_most else self.figure >= self.bound
        return "pass" if held else "FAIL"

    @property
    def failed(self) -> bool:
        return self.verdict == "FAIL"

    @property
    def bound_text(self) -> str:
        return f"{'≤' if self.at_most else '≥'} {number(self.bound)}{self.unit}"

    def line(self) -> str:
        """The figure beside its bound and margin; a failed gate also says by how much it missed."""
        text = f"gate {self.number}, {self.name} at {self.where}: {number(self.figure)}{self.unit}, "
        text += f"bound {self.bound_text} ({self.margin}): {self.verdict}"
        if self.failed and self.figure is not None and self.bound is not None:
            off = abs(self.figure - self.bound)
            share = f" ({off / self.bound:.{0 if off >= self.bound / 10 else 1}%} of the bound)" if self.bound else ""
            text += f", {'over' if self.at_most else 'short'} by {number(off)}{self.unit}{share}"
        return text + "".join(f"\n  {detail}" for detail in self.details)


def number(value: float | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.3f}" if abs(value) < 1 else f"{value:,.2f}" if abs(value) < 10 else f"{value:,.1f}"


def load_bounds(path: Path = BOUNDS_FILE) -> dict[str, Any]:
    bounds: dict[str, Any] = json.loads(path.read_text())
    return bounds


def _measured(stage: Any) -> dict[str, Any]:
    return stage if isinstance(stage, dict) and not isinstance(stage.get("skipped"), str) else {}


def rebuild_pace(size: dict[str, Any]) -> Gate:
    """Gate 1: a full rebuild into an empty view at least as fast as seeding wrote the shop, less the margin.
    A rebuild that exited with an error counts 0 items/s."""
    seeded = _measured(size.get("seeding")).get("batched", {}).get("items_per_s")
    rebuild = _measured(size.get("repair")).get("rebuild") or {}
    name = "rebuild_adminview's shop items/s (its own walk)"
    figure = rebuild.get("own_items_per_s")
    if figure is None and rebuild.get("items_per_s") is not None:
        name, figure = "rebuild_adminview's shop items/s (wall time: no summary line)", rebuild["items_per_s"]
    if rebuild and rebuild.get("exit") != 0:
        name, figure = f"rebuild_adminview's shop items/s (exit {rebuild.get('exit')})", 0
    return Gate(
        1,
        name,
        f"{size['orders']:,} orders",
        figure,
        round(seeded * (1.0 - REBUILD_MARGIN), 1) if seeded else None,
        f"seeding's {number(seeded)} items/s in the same run, less {REBUILD_MARGIN:.0%}",
        at_most=False,
        unit=" items/s",
    )


def sync_cpu(size: dict[str, Any], bounds: dict[str, Any]) -> Gate:
    """Gate 2: the sync process's CPU per stream record over the drain (start-up and the bench's hooks excluded), in
    bare PutItems' CPU timed beside the drain, against the committed figure for that size: a regression alarm whose
    unit moves with the machine as the figure does, so another machine or a slower hour does not trip it."""
    base = (bounds.get("sync_cpu_in_putitems") or {}).get(str(size["orders"]))
    return Gate(
        2,
        "the sync's process CPU per stream record, in bare PutItems' CPU",
        f"{size['orders']:,} orders",
        _measured(size.get("sync")).get("process_cpu_in_putitems"),
        None if base is None else round(base * (1.0 + CPU_MARGIN), 3),
        f"committed {number(base)}, plus {CPU_MARGIN:.0%}",
        unit=" PutItems",
    )


def sync_calls(sizes: list[dict[str, Any]], bounds: dict[str, Any]) -> list[Gate]:
    """Gate 3: the sync's DynamoDB calls per 1,000 stream records, at each size with a committed figure."""
    committed = bounds.get("sync_calls_per_1000_records") or {}
    return [
        Gate(
            3,
            "the sync's DynamoDB calls per 1,000 stream records",
            f"{size['orders']:,} orders",
            _measured(size.get("sync")).get("calls_per_1000_records"),
            round(base * (1.0 + CALLS_MARGIN), 1),
            f"committed {number(base)}, plus {CALLS_MARGIN:.0%}",
        )
        for size in sizes
        if (base := committed.get(str(size["orders"]))) is not None
    ]


def view_units(size: dict[str, Any]) -> Gate:
    """Gate 4: the view's write units per shop write, by the billing rules (the weights of what the sync sent)."""
    return Gate(
        4,
        "view write units per shop write (billing rules)",
        f"{size['orders']:,} orders",
        _measured(size.get("sync")).get("estimated_wcu_per_shop_write"),
        WCU_PER_SHOP_WRITE,
        f"fixed: the {WCU_PER_SHOP_WRITE_GOAL:g} goal plus {WCU_PER_SHOP_WRITE - WCU_PER_SHOP_WRITE_GOAL:g}; "
        "weighed from what was sent, so load does not move it",
    )


def sync_pace(size: dict[str, Any]) -> Gate:
    """Gate 7: the sync drains the seed's stream at least as fast as seeding wrote it, in the same run."""
    seeded = _measured(size.get("seeding")).get("batched", {}).get("items_per_s")
    return Gate(
        7,
        "the sync's stream records/s",
        f"{size['orders']:,} orders",
        _measured(size.get("sync")).get("records_per_s"),
        round(seeded * SYNC_PACE, 1) if seeded else None,
        f"seeding's {number(seeded)} items/s in the same run, times {SYNC_PACE:g}",
        at_most=False,
        unit=" records/s",
    )


def half_speed_lag(sizes: list[dict[str, Any]]) -> Gate:
    """Gate 8: the lag's p95 (a shop write until the pending page shows it) beside a writer at half of seeding's
    pace, at the largest size where it was measured."""
    measured = [
        (size, half)
        for size in sizes
        if (half := (_measured(size.get("follow_lag")).get("under_load") or {}).get("half"))
    ]
    size, half = measured[-1] if measured else (sizes[-1], {})
    return Gate(
        8,
        "the lag's p95 beside a writer at half of seeding's pace",
        f"{size['orders']:,} orders",
        (half.get("loaded") or {}).get("p95_ms"),
        HALF_SPEED_LAG_P95_MS,
        "fixed: what staff feel, whatever the machine's speed (the writer's pace follows seeding's)",
        unit=" ms",
    )


def page_calls(results: dict[str, Any]) -> Gate:
    """Gate 5: no page's DynamoDB calls (through Django or at its data layer) grow with the table
    (``report.growth_violations``, one line per figure that grew)."""
    grew = results.get("growth_violations")
    return Gate(
        5,
        "page figures whose DynamoDB calls grow with the table",
        "every page, each size against the smallest",
        None if grew is None else len(grew),
        0,
        "none: calls are counted, not timed",
        details=tuple(grew or ()),
    )


def page_times(sizes: list[dict[str, Any]], bounds: dict[str, Any]) -> list[Gate]:
    """Gate 6: each page's p50 through Django, at each size and page with a committed figure."""
    committed = bounds.get("page_p50_ms") or {}
    return [
        Gate(
            6,
            "p50 through Django",
            f"{page} at {size['orders']:,} orders",
            (size.get("page", {}).get(page) or {}).get("p50_ms"),
            round(base * (1.0 + PAGE_TIME_MARGIN), 2),
            f"committed {number(base)} ms, plus {PAGE_TIME_MARGIN:.0%}",
            unit=" ms",
        )
        for size in sizes
        for page, base in (committed.get(str(size["orders"])) or {}).items()
    ]


def check(results: dict[str, Any], bounds: dict[str, Any] | None = None) -> list[Gate]:
    """Every gate of a run (``bounds``: the committed figures, by default ``gates.json``)."""
    bounds = load_bounds() if bounds is None else bounds
    sizes = sorted(results.get("sizes", []), key=lambda size: size["orders"])
    if not sizes:
        return [page_calls(results)]
    largest = sizes[-1]
    return [
        rebuild_pace(largest),
        sync_cpu(largest, bounds),
        *sync_calls(sizes, bounds),
        view_units(largest),
        page_calls(results),
        *page_times(sizes, bounds),
        sync_pace(largest),
        half_speed_lag(sizes),
    ]


def failures(results: dict[str, Any], bounds: dict[str, Any] | None = None) -> list[str]:
    """One line per failed gate: its figure beside its bound and margin."""
    return [gate.line() for gate in check(results, bounds) if gate.failed]


def as_json(gates: list[Gate]) -> list[dict[str, Any]]:
    """The gates as a results file keeps them, each with its verdict."""
    return [asdict(gate) | {"verdict": gate.verdict} for gate in gates]


def section(stored: list[dict[str, Any]] | None) -> list[str]:
    """The report's "Gates" section: each gate's figure beside its bound, from a results file's ``gates``."""
    if not stored:
        return []
    fields = set(Gate.__dataclass_fields__)
    gates = [Gate(**{key: value for key, value in row.items() if key in fields}) for row in stored]
    failed = sum(1 for gate in gates if gate.failed)
    return [
        "",
        "## Gates",
        "",
        "A run fails (exit 1) when a figure misses its bound; each bound's margin is given beside it "
        f"(`bench/gates.py`, committed figures in `bench/gates.json`). {failed} of {len(gates)} failed.",
        "",
        "| gate | what | at | figure | bound | margin | verdict |",
        "|---:|---|---|---:|---:|---|---|",
        *(
            f"| {g.number} | {g.name} | {g.where} | {number(g.figure)}{g.unit} | {g.bound_text} | {g.margin} | "
            f"{g.verdict} |"
            for g in gates
        ),
    ]


def recorded(results: dict[str, Any]) -> dict[str, Any]:
    """The committed figures (gates 2, 3 and 6) a run's results give, with where they came from."""
    sizes = [size for size in results["sizes"] if _measured(size.get("sync")).get("calls_per_1000_records")]
    return {
        "recorded_from": {key: results.get(key) for key in ("started", "command", "host", "load_at_start", "load_now")},
        "sync_calls_per_1000_records": {str(s["orders"]): s["sync"]["calls_per_1000_records"] for s in sizes},
        "sync_cpu_in_putitems": {
            str(s["orders"]): s["sync"]["process_cpu_in_putitems"]
            for s in sizes
            if s["sync"].get("process_cpu_in_putitems") is not None
        },
        "page_p50_ms": {
            str(size["orders"]): {
                page: row["p50_ms"] for page, row in size.get("page", {}).items() if (row or {}).get("p50_ms")
            }
            for size in results["sizes"]
        },
    }


def recorded_pages(committed: dict[str, Any], results: dict[str, Any], pages: list[str]) -> dict[str, Any]:
    """The committed figures with only ``pages``' p50 taken from a run (a page whose reads changed on purpose), the
    run noted beside the pages it gave."""
    run = recorded(results)
    unknown = sorted({p for p in pages if not any(p in by_page for by_page in run["page_p50_ms"].values())})
    if unknown:
        raise SystemExit(f"no figures for {', '.join(unknown)} in {results.get('command')!r}")
    updated: dict[str, Any] = copy.deepcopy(committed)
    for size, by_page in run["page_p50_ms"].items():
        for page in pages:
            if page in by_page:
                updated["page_p50_ms"].setdefault(size, {})[page] = by_page[page]
    updated.setdefault("pages_recorded_later", []).append({"pages": pages, **run["recorded_from"]})
    return updated


def recorded_sync(committed: dict[str, Any], results: dict[str, Any]) -> dict[str, Any]:
    """The committed figures with only the sync's (gates 2 and 3) taken from a run (the sync's own code or its
    unit changed), the run noted under ``sync_recorded_later``."""
    run = recorded(results)
    updated: dict[str, Any] = copy.deepcopy(committed)
    for key in ("sync_calls_per_1000_records", "sync_cpu_in_putitems"):
        updated[key] = run[key]
    updated["sync_recorded_later"] = run["recorded_from"]
    return updated


def main(argv: list[str] | None = None) -> int:
    """Judge a results file against the committed figures, or (``--record``) commit its figures as the bounds."""
    parser = argparse.ArgumentParser(prog="python -m bench.gates", description=main.__doc__)
    parser.add_argument("results", type=Path, help="a results file, e.g. bench/results/quick.json")
    parser.add_argument("--record", action="store_true", help=f"write its figures to {BOUNDS_FILE.name}")
    parser.add_argument(
        "--pages",
        help="with --record: only these pages' p50 (comma-separated; pages whose reads changed), the rest kept",
    )
    parser.add_argument("--sync", action="store_true", help="with --record: only the sync's figures, the rest kept")
    opts = parser.parse_args(argv)
    results = json.loads(opts.results.read_text())
    if (opts.pages or opts.sync) and not opts.record:
        parser.error("--pages and --sync go with --record")
    if opts.pages and opts.sync:
        parser.error("--pages and --sync record different figures: one at a time")
    if opts.record:
        committed = json.loads(BOUNDS_FILE.read_text()) if opts.pages or opts.sync else {}
        if opts.pages:
            figures = recorded_pages(committed, results, [p.strip() for p in opts.pages.split(",") if p.strip()])
        elif opts.sync:
            figures = recorded_sync(committed, results)
        else:
            figures = recorded(results)
        BOUNDS_FILE.write_text(json.dumps(figures, indent=2) + "\n")
        print(f"written: {BOUNDS_FILE}")
    gates = check(results)
    for gate in gates:
        print(gate.line())
    return 1 if any(gate.failed for gate in gates) else 0


if __name__ == "__main__":
    sys.exit(main())
