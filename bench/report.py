"""Results: JSON, a Markdown table and a log-scale plot (matplotlib, when installed), plus the checks a run fails on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench import gates, report_sections, report_upkeep, stats_pages

PAGE_TITLES = {
    "pending": "pending orders, 1st page",
    "invoices": "customer's invoices, 1 year",
    "buyers": "product's buyers",
    "order": "order detail",
    "order_json": "order detail as JSON",
    "order_create": "create order form",
    "order_edit": "edit order form",
    "product": "product page (sales per month, stock, orders in 1 year)",
    "warehouse": "warehouse page (stock, shipments)",
    "explorer": "explorer: pattern 9, 1 year",
    "search": "search, 1st page",
    "search_name": "search for a full name, 1st page",
    "search_email": "search for an email's domain, 1st page",
    "orders_all": "every order, 1st page",
    "delivered": "delivered orders, 1st page",
    "stats_status": "stats: orders by status",
    "stats_daily_30": "stats: per day, 30 days",
    "stats_daily_366": "stats: per day, 366 days",
    "stats_categories": "stats: by category, 30 days",
    "stats_refunds_30": "stats: refunds per day, 30 days",
    "returns": "returns awaiting action, 1st page",
}
WAYS = (("page", "ours: page (Django)"), ("data", "ours: data layer"), ("naive", "naive"))
NAIVE_HOW = {"pending": "Scan + filter", "invoices": "Scan + filter", "buyers": "GSI1 query + GetItem per buyer"}
NAIVE_HOW |= dict.fromkeys(stats_pages.SUMMED, "Scan + sum")
WCU_GOAL = report_upkeep.WCU_PER_SHOP_WRITE_GOAL


def growth_violations(results: dict[str, Any]) -> list[str]:
    """A page whose DynamoDB call count (ours, page or data layer) is higher at a larger size than at the smallest."""
    sizes = sorted(results["sizes"], key=lambda s: s["orders"])
    problems: list[str] = []
    for way in ("page", "data"):
        for page in PAGE_TITLES:
            seen = [(s["orders"], s[way].get(page, {}).get("calls")) for s in sizes]
            seen = [(n, c) for n, c in seen if c is not None]
            if len(seen) < 2:
                continue
            base_n, base = seen[0]
            for n, calls in seen[1:]:
                if calls > base:
                    problems.append(f"{page} ({way}): {calls} DynamoDB calls at {n} orders vs {base} at {base_n}")
    return problems


def call_mismatches(results: dict[str, Any]) -> list[str]:
    """A page whose data layer (``stages.page_work``) makes other DynamoDB calls than the page: then the two
    columns would not measure the same work, and their ratio would not be Django's own time."""
    problems: list[str] = []
    for size in results["sizes"]:
        for page in PAGE_TITLES:
            through, direct = size["page"].get(page) or {}, size["data"].get(page) or {}
            if "calls" in through and "calls" in direct and through["calls"] != direct["calls"]:
                problems.append(
                    f"{page} at {size['orders']} orders: {through['calls']} calls through Django, "
                    f"{direct['calls']} at the data layer"
                )
    return problems


# Worth a look, not a failure: a page whose p50 through Django is more than this many times its data layer's p50 at
# ALARM_ORDERS orders is listed under its own heading. On DynamoDB Local a data layer takes 3 to 40 ms, so the
# ratio moves with the machine's load; ``python -m bench.profile_pages`` shows what Django's own time is made of.
DJANGO_TIME_ALARM = 2.0
ALARM_ORDERS = 2_000


def django_times(page: dict[str, Any], data: dict[str, Any]) -> Iterator[tuple[str, float, float, float]]:
    """(page, p50 through Django, p50 at the data layer, ratio) for each page measured both ways; a page that
    makes no DynamoDB call (a blank form) has no data layer to set Django's time against."""
    for name in PAGE_TITLES:
        through, direct = (page.get(name) or {}).get("p50_ms"), (data.get(name) or {}).get("p50_ms")
        if through is not None and direct and (data.get(name) or {}).get("calls"):
            yield name, through, direct, through / direct


def django_time_lines(page: dict[str, Any], data: dict[str, Any]) -> list[str]:
    """One line per page: p50 through Django, at the data layer, and their ratio."""
    return [
        f"{name:9} page p50 {through:6.2f} ms, data layer p50 {direct:6.2f} ms, ratio {ratio:4.2f}"
        for name, through, direct, ratio in django_times(page, data)
    ]


def django_time_alarms(results: dict[str, Any]) -> list[str]:
    """A page whose p50 through Django is over ``DJANGO_TIME_ALARM`` times its data layer's at ``ALARM_ORDERS``
    orders (other sizes are reported, not judged)."""
    return [
        f"{name} at {size['orders']:,} orders: {through:.2f} ms through Django, {direct:.2f} ms at the data layer "
        f"({ratio:.2f}x)"
        for size in results["sizes"]
        if size["orders"] == ALARM_ORDERS
        for name, through, direct, ratio in django_times(size["page"], size["data"])
        if ratio > DJANGO_TIME_ALARM
    ]


def _django_time(sizes: list[dict[str, Any]]) -> list[str]:
    lines = [
        "",
        "## Django's own time",
        "",
        "Each page's p50 through Django (the test client: middleware, session, user, view, template) against its "
        "data layer's p50 (the same DynamoDB calls, made directly), measured alternately request by request; the "
        "ratio shows what Django's own time adds (reported, not a target).",
        "",
        "| orders | page | through Django p50 ms | data layer p50 ms | ratio |",
        "|---:|---|---:|---:|---:|",
    ]
    for size in sizes:
        for name, through, direct, ratio in django_times(size["page"], size["data"]):
            lines.append(f"| {size['orders']:,} | {name} | {_fmt(through)} | {_fmt(direct)} | {ratio:.2f} |")
    return lines


def _stats_agreement(sizes: list[dict[str, Any]]) -> list[str]:
    """Whether the naive Scan's sums equal what the stats pages read from the view (a check of the numbers)."""
    said = [
        f"{size['orders']:,} orders: {'equal' if row['agrees_with_view'] else 'DIFFERENT'}"
        for size in sizes
        if "agrees_with_view" in (row := size["naive"].get("stats_status") or {})
    ]
    if not said:
        return []
    return ["", "The stats pages' figures against the naive Scan's sums: " + "; ".join(said) + "."]


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.1f}" if value >= 10 else f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _load(results: dict[str, Any]) -> str:
    start, now = results.get("load_at_start"), results.get("load_now")
    if not start:
        return "not recorded"
    text = f"{report_upkeep.load_text(start)} at the start"
    return text + (f", {report_upkeep.load_text(now)} at the end" if now else "") + " (1 / 5 / 15 minutes)"


def markdown(results: dict[str, Any]) -> str:
    lines = [
        f"# Benchmark results ({results['label']})",
        "",
        f"Run {results['started']} UTC, {results['seconds']:.0f} s, `{results['command']}`; DynamoDB Local "
        f"(in memory) on {results['host']}; load average {_load(results)}. Times are wall-clock on DynamoDB "
        "Local and only comparable within this run; calls, round trips, RCU and items read are what DynamoDB "
        "would bill/serve.",
        "",
        "## Pages",
        "",
        "| orders | page | way | calls | round trips | RCU | items read | p50 ms | p95 ms |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    skipped: set[str] = set()
    for size in results["sizes"]:
        for page, title in PAGE_TITLES.items():
            for way, label in WAYS:
                row = size[way].get(page)
                if row is None:
                    continue
                if "skipped" in row:
                    skipped.add(f"{label} / {title}: {row['skipped']}")
                    continue
                how = f"{label} ({NAIVE_HOW[page]})" if way == "naive" else label
                if row.get("shared_scan"):
                    how += " [one Scan for every Scan baseline]"
                elif row.get("one_scan_for_stats"):
                    how += " [one Scan for the four stats pages]"
                lines.append(
                    f"| {size['orders']:,} | {title} | {how} | {_fmt(row['calls'])} | "
                    f"{_fmt(row['round_trips'])} | {_fmt(row['rcu'])} | {_fmt(row['items_read'])} | "
                    f"{_fmt(row['p50_ms'])} | {_fmt(row['p95_ms'])} |"
                )
    lines += _stats_agreement(results["sizes"])
    lines += _django_time(results["sizes"])
    lines += _writes_and_sync(results["sizes"], skipped)
    lines += report_upkeep.by_kind(results["sizes"], skipped)
    lines += report_upkeep.sync_cpu(results["sizes"])
    lines += report_upkeep.sync_calls(results["sizes"])
    lines += report_upkeep.order_life(results["sizes"], skipped)
    lines += report_sections.following(results["sizes"], skipped)
    lines += report_sections.backfill(results["sizes"], skipped)
    lines += _repair(results["sizes"], skipped)
    lines += report_sections.pace(results["sizes"])
    lines += report_sections.cpu_per_item(results["sizes"])
    lines += report_sections.stage_times(results["sizes"])
    lines += report_upkeep.stage_loads(results["sizes"])
    lines += ["", "## Subjects", ""]
    for size in results["sizes"]:
        if "subjects" not in size:
            continue
        s = size["subjects"]
        lines.append(
            f"- {size['orders']:,} orders ({_fmt(size.get('items'))} items; {s['pending_orders']:,} pending): "
            f"customer {s['customer_id']} ({s['invoices_in_year']} invoices in the year), product "
            f"{s['product_id']} ({s['product_buyers']} buyers), order {s['order_id']} "
            f"({s['order_items']} lines), pending order {s.get('pending_order_id') or '-'} (edited)"
        )
    if skipped:
        lines += ["", "## Skipped", ""] + [f"- {text}" for text in sorted(skipped)]
    lines += gates.section(results.get("gates"))
    problems = results.get("growth_violations", [])
    mismatches = results.get("call_mismatches", [])
    alarms = results.get("django_time_alarms", [])
    lines += [
        "",
        "## Check: calls per page do not grow with the table",
        "",
        "PASS" if not problems else "FAIL:\n" + "\n".join(f"- {p}" for p in problems),
        "",
        "## Check: each page's data layer makes the page's DynamoDB calls",
        "",
        "PASS" if not mismatches else "FAIL:\n" + "\n".join(f"- {p}" for p in mismatches),
        "",
        f"## Worth a look: Django's own time at {ALARM_ORDERS:,} orders over {DJANGO_TIME_ALARM:g}x its data layer's",
        "",
        "(reported, not a failure)",
        "",
        "none" if not alarms else "\n".join(f"- {p}" for p in alarms),
    ]
    return "\n".join(lines) + "\n"


def _reached(stage: dict[str, Any], name: str, skipped: set[str]) -> bool:
    """False (noted under "Skipped") for a stage that did not run; a stage's own counts may be named skipped."""
    if isinstance(stage.get("skipped"), str):
        skipped.add(f"{name}: {stage['skipped']}")
        return False
    return True


def _writes_and_sync(sizes: list[dict[str, Any]], skipped: set[str]) -> list[str]:
    lines = [
        "",
        "## Writes",
        "",
        "| orders | items | batched items/s | PutItem items/s (sample) | speed-up |",
        "|---:|---:|---:|---:|---:|",
    ]
    for size in sizes:
        seed = size["seeding"]
        if _reached(seed, f"seeding at {size['orders']:,}", skipped):
            put = seed["put_item"]
            put_text = f"{_fmt(put['items_per_s'])} ({put['items']:,}) | {seed['speedup']}x" if put else "- | -"
            lines.append(
                f"| {size['orders']:,} | {seed['batched']['items']:,} | {_fmt(seed['batched']['items_per_s'])} | "
                f"{put_text} |"
            )
    lines += [
        "",
        "## Sync over the whole stream (the product's poller, drained after seeding)",
        "",
        "Backlog lag: applied minus the record's `ApproximateCreationDateTime`, for every record (DynamoDB Local "
        "stamps it coarsely, so small values read up to a minute high); the drain starts when seeding ends, so this "
        "is how long records waited. Write-to-page lag: "
        "`order_place` until the order is on `/orders/pending/`, with the poller draining in a tight loop (the "
        "pipeline's own lag; with the poller following, idle and under load, see below).",
        "",
        "| orders | stream records | seconds | records/s | applied | skipped | failed | backlog lag p50 / p95 / max s "
        "| write-to-page lag p50 / p95 ms |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size in sizes:
        sync, lag = size["sync"], size["lag"]
        if not _reached(sync, f"sync at {size['orders']:,}", skipped):
            continue
        page_lag = f"{_fmt(lag['p50_ms'])} / {_fmt(lag['p95_ms'])}" if "p50_ms" in lag else "-"
        backlog = " / ".join(f"{sync[k] / 1000.0:,.1f}" for k in ("lag_p50_ms", "lag_p95_ms", "lag_max_ms"))
        lines.append(
            f"| {size['orders']:,} | {sync['records']:,} | {_fmt(sync['seconds'])} | {_fmt(sync['records_per_s'])} | "
            f"{sync['applied']:,} | {sync['skipped']:,} | {sync['failed']:,} | {backlog} | {page_lag} |"
        )
    lines += [
        "",
        "## View writes per shop write",
        "",
        "Write units the view table consumed (`ReturnConsumedCapacity` on every write call of the sync) per "
        "stream record (one shop-table item write each), replay protection included; the anchors (order "
        "summaries, profiles and catalogue rows, `#order` / `#profile` / `#product`) also carry the sequence "
        "numbers applied. Split per shop write: (a) the projection with its replay protection (anchors, list "
        "entries, payment references, profiles, activity, catalogue rows) and (b) the numbers' upkeep (sums: "
        "counters `STATS#...` and buyer relations `b#...`; `#counted` items; and half of any other item written "
        "inside a TransactWriteItems, where writes cost twice). A call writing items of several classes splits "
        "its units by each item's weight: its size in KB rounded up, times one plus the index key pairs it "
        "carries, doubled in a transaction (`bench/sync.py`). The weights are DynamoDB's billing rules applied "
        "to what the sync sent: their sums, per shop write, are the estimate in the last column (DynamoDB Local "
        "3.x reports about 2 units for a whole transaction, whatever it writes; real DynamoDB bills 2 per item and "
        "KB).",
        "",
        "| orders | view WCU | of which anchors | view items written | WCU per shop write | (a) projection | "
        f"(b) numbers | by the billing rules: (a) / (b) | by the billing rules, per shop write (goal ≤ {WCU_GOAL:g}) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size in sizes:
        sync = size["sync"]
        if not isinstance(sync.get("skipped"), str):
            lines.append(
                f"| {size['orders']:,} | {_fmt(sync['view_wcu'])} | {_fmt(sync.get('anchor_wcu'))} | "
                f"{sync['view_items_written']:,} | {_fmt(sync['wcu_per_shop_write'])} | "
                f"{_fmt(sync.get('projection_wcu_per_shop_write'))} | {_fmt(sync.get('numbers_wcu_per_shop_write'))} | "
                f"{_fmt(sync.get('estimated_projection_wcu_per_shop_write'))} / "
                f"{_fmt(sync.get('estimated_numbers_wcu_per_shop_write'))} | "
                f"{report_upkeep.at_most(sync.get('estimated_wcu_per_shop_write'), WCU_GOAL, 2)} |"
            )
    return lines


def _repair(sizes: list[dict[str, Any]], skipped: set[str]) -> list[str]:
    lines = [
        "",
        "## Rebuild and verify (child processes)",
        "",
        "`rebuild_adminview` into a new, empty view table (a full rebuild), then `verify_adminview` of the view the "
        "sync built (with `--repair-only`, of the view the rebuild wrote); items/s is the shop table's items over "
        "the command's wall time (Python start-up included), and in brackets over the seconds its summary line "
        "gives (its own walk: start-up excluded, as in seeding's items/s); "
        "peak memory is the child's peak resident set size (`VmHWM`, sampled every 0.2 s).",
        "",
        "| orders | command | exit | seconds | shop items/s (own) | peak memory MB | view items | last output |",
        "|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    notes = []
    for size in sizes:
        repair = size["repair"]
        if not _reached(repair, f"rebuild/verify at {size['orders']:,}", skipped):
            continue
        if repair.get("note"):
            notes.append(f"- {size['orders']:,} orders: {repair['note']}")
        for name in ("rebuild", "verify"):
            run = repair[name]
            items = run.get("view_items_written", run.get("view_items"))
            last = (run["output"][-1] if run["output"] else "").replace("|", "/")[:120]
            lines.append(
                f"| {size['orders']:,} | `{run['command']}` | {run['exit']} | {_fmt(run['seconds'])} | "
                f"{_fmt(run['items_per_s'])} ({_fmt(run.get('own_items_per_s'))}) | {_fmt(run['peak_rss_mb'])} | "
                f"{_fmt(items)} | {last} |"
            )
    return lines + (["", *notes] if notes else [])


def plot(results: dict[str, Any], path: Path) -> Path | None:
    """RCU and calls per page against table size, log scale, ours (solid) vs naive (dashed)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    sizes = sorted(results["sizes"], key=lambda s: s["orders"])
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    colors = {"pending": "tab:blue", "invoices": "tab:orange", "buyers": "tab:green", "order": "tab:red"}
    markers = {"pending": "s", "invoices": "o", "buyers": "^", "order": "D"}
    for ax, metric, title in ((axes[0], "rcu", "RCU per page"), (axes[1], "calls", "DynamoDB calls per page")):
        for page in PAGE_TITLES:
            for way, style in (("page", "-"), ("data", "-"), ("naive", "--")):
                points = [(s["orders"], s[way].get(page, {}).get(metric)) for s in sizes]
                points = [(n, v) for n, v in points if v is not None]
                if not points:
                    continue
                if way == "data" and any(s["page"].get(page, {}).get(metric) is not None for s in sizes):
                    continue  # the page's own figures are shown
                label = f"{page} ({'naive: ' + NAIVE_HOW[page] if way == 'naive' else 'ours'})"
                ax.plot(
                    [n for n, _ in points],
                    [max(v, 0.1) for _, v in points],
                    style,
                    marker=markers.get(page, "x"),
                    color=colors.get(page),
                    label=label,
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("orders in the shop table")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"shop-admin: cost per page vs table size ({results['label']})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write(results: dict[str, Any], out_dir: Path, stem: str) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / f"{stem}.json", "md": out_dir / f"{stem}.md"}
    picture = plot(results, out_dir / f"{stem}.png")
    if picture:
        results["plot"] = picture.name  # relative to the results folder
    paths["json"].write_text(json.dumps(results, indent=2, default=str) + "\n")
    paths["md"].write_text(markdown(results) + (f"\n![cost per page]({picture.name})\n" if picture else ""))
    if picture:
        paths["png"] = picture
    return paths
