"""The category backfill's cost at a size: ``manage.py backfill order-item-category`` in a child process, as an
operator runs it, over a shop seeded with a share of its orders as before categories existed
(``stages.UNCATEGORIZED_SHARE``: their items carry no ``Category``), then the sync carrying its changes into the
view, where those orders' units move from ``uncategorized`` to their categories.

The backfill reports what it scanned and changed and the capacity it consumed on its last line; that line is
read here (``parse_summary``).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from adminview.core.schema import UNCATEGORIZED
from adminview.reads import number_reads
from bench import repair, sync
from shop import seeding

SUMMARY = re.compile(
    r"scanned (?P<scanned>\d+) items in (?P<segments>\d+) segments, (?P<candidates>\d+) candidates, "
    r"changed (?P<changed>\d+), skipped (?P<skipped>\d+) already upgraded, (?P<unresolved>\d+) without a "
    r"derivable value; (?P<rcu>[\d.]+) RCU / (?P<wcu>[\d.]+) WCU in (?P<backfill_seconds>[\d.]+)s"
)
SYNCED = ("records", "seconds", "records_per_s", "failed", "view_wcu", "projection_wcu", "numbers_wcu")


def parse_summary(lines: list[str]) -> dict[str, Any]:
    """The figures of the backfill's summary line (empty when no line has them)."""
    for line in reversed(lines):
        found = SUMMARY.search(line)
        if found:
            return {
                name: float(value) if name in ("rcu", "wcu", "backfill_seconds") else int(value)
                for name, value in found.groupdict().items()
            }
    return {}


def planned_changes(plan: seeding.SeedPlan) -> int:
    """Order items the plan wrote without a category (every seeded product has one, so the backfill changes
    each of them)."""
    return sum(1 for order in plan.orders for line in order.lines if line.category is None)


def uncategorized_units(until: date = seeding.DEFAULT_UNTIL) -> int:
    """Units the view counts as ``uncategorized`` over the seed's whole span (366 days a read)."""
    start, units = until - timedelta(days=seeding.SPAN_DAYS + 1), 0
    while start <= until:
        end = min(until, start + timedelta(days=number_reads.MAX_DAYS - 1))
        units += sum(r.units for r in number_reads.by_category(start=start, end=end) if r.category == UNCATEGORIZED)
        start = end + timedelta(days=1)
    return units


def category_backfill(reader: sync.TimedPoller, plan: seeding.SeedPlan) -> dict[str, Any]:
    """Run the backfill in a child process, then drain what it wrote through the sync."""
    before = uncategorized_units()
    run = repair.run_command(["backfill", "order-item-category", "--no-progress"], repair.child_env())
    summary = parse_summary(run["output"])
    synced = sync.sync(reader)
    scanned = summary.get("scanned")
    return {
        "command": run["command"],
        "exit": run["exit"],
        "seconds": run["seconds"],
        "peak_rss_mb": run["peak_rss_mb"],
        "output": run["output"],
        "planned": planned_changes(plan),
        **summary,
        "items_per_s": round(scanned / run["seconds"], 1) if scanned and run["seconds"] else None,
        "sync": {name: synced[name] for name in SYNCED},
        "uncategorized_units": {"before": before, "after": uncategorized_units()},
    }
