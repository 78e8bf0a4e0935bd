"""The load test's results: locust's per-page figures (requests/s, p50/p95/p99, failures), the status codes
seen, and the action check; as JSON and as a Markdown table."""

from __future__ import annotations

import csv
import json
import os
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def _number(text: str) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def page_rows(stats_csv: Path) -> list[dict[str, Any]]:
    """One row per page (and the aggregate) from locust's ``*_stats.csv``."""
    rows = []
    with stats_csv.open(newline="") as handle:
        for row in csv.DictReader(handle):
            rows.append(
                {
                    "page": row["Name"] if row["Name"] != "Aggregated" else "all",
                    "requests": int(row["Request Count"]),
                    "failures": int(row["Failure Count"]),
                    "rps": round(_number(row["Requests/s"]) or 0.0, 2),
                    "p50_ms": _number(row["50%"]),
                    "p95_ms": _number(row["95%"]),
                    "p99_ms": _number(row["99%"]),
                    "max_ms": _number(row["Max Response Time"]),
                }
            )
    return rows


def results(
    *,
    opts: dict[str, Any],
    database: str,
    stats_csv: Path,
    record: dict[str, Any],
    lost: list[dict[str, str]],
    pending: int,
    seeded_items: int,
    elapsed_s: float,
) -> dict[str, Any]:
    pages = page_rows(stats_csv)
    statuses: dict[str, int] = record["statuses"]
    server_errors = sum(n for key, n in statuses.items() if key.rsplit(" ", 1)[1].startswith("5"))
    errors = next((row["failures"] for row in pages if row["page"] == "all"), 0)
    actions = record["actions"]
    failures = []
    if server_errors:
        failures.append(f"{server_errors} responses were 5xx")
    if errors:
        failures.append(f"{errors} requests failed (unexpected status or no answer)")
    if lost:
        failures.append(f"{len(lost)} successful ship/cancel not in the shop table: {lost[:5]}")
    return {
        "started": datetime.now(UTC).replace(tzinfo=None, microsecond=0).isoformat(),
        "command": "python -m bench.load "
        + " ".join(
            f"--{k} {v}"
            for k, v in opts.items()
            if k in ("users", "duration", "orders", "think", "workers", "threads") and v is not None
        ),
        "host": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "options": opts,
        "staff_database": database,
        "seeded_items": seeded_items,
        "pending_orders": pending,
        "elapsed_s": round(elapsed_s, 1),
        "pages": pages,
        "statuses": dict(sorted(statuses.items())),
        "server_errors": server_errors,
        "errors": errors,
        "actions": {
            "ship": sum(1 for a in actions if a["action"] == "ship"),
            "cancel": sum(1 for a in actions if a["action"] == "cancel"),
            "conflicts": len(record["conflicts"]),
            "lost": len(lost),
        },
        "failures": failures,
    }


def _ms(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"


def markdown(res: dict[str, Any]) -> str:
    opts = res["options"]
    lines = [
        f"# Load test: {opts['users']} concurrent staff",
        "",
        f"Run {res['started']} UTC, `{res['command']}`: {opts['duration']} s of load by locust (headless) against "
        f"gunicorn ({opts['workers']} workers x {opts['threads'] or 'configured'} threads, DEBUG off) and "
        "DynamoDB Local (in memory, "
        f"{res['seeded_items']:,} items, {opts['orders']:,} orders), staff database {res['staff_database']}, all on "
        f"127.0.0.1 of one machine ({res['host']}) that also runs the load generator. Think time "
        f"{opts['think'] / 2:g}-{opts['think'] * 1.5:g} s between a user's requests; one user in ten ships and "
        "cancels; each user logs in through the form first (PBKDF2, CPU-bound). Times are milliseconds as locust "
        "measures them (its percentiles are rounded to 2 significant digits).",
        "",
        "| page | requests | req/s | p50 | p95 | p99 | max | failures |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in res["pages"]:
        name = f"**{row['page']}**" if row["page"] == "all" else row["page"]
        lines.append(
            f"| {name} | {row['requests']:,} | {row['rps']:.2f} | {_ms(row['p50_ms'])} | {_ms(row['p95_ms'])} | "
            f"{_ms(row['p99_ms'])} | {_ms(row['max_ms'])} | {row['failures']} |"
        )
    actions = res["actions"]
    lines += [
        "",
        f"- 5xx responses: **{res['server_errors']}**; failed requests: **{res['errors']}**",
        f"- actions: {actions['ship']} shipped, {actions['cancel']} cancelled (each checked in the shop table "
        f"afterwards: **{actions['lost']} lost**); {actions['conflicts']} answered 409 (nothing changed)",
        "- status codes: " + ", ".join(f"{key}: {n:,}" for key, n in res["statuses"].items()),
        "",
        "Result: " + ("PASS" if not res["failures"] else "FAIL: " + "; ".join(res["failures"])),
        "",
    ]
    return "\n".join(lines)


def write(res: dict[str, Any], out: Path, name: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / f"{name}.json", out / f"{name}.md"
    json_path.write_text(json.dumps(res, indent=1) + "\n")
    md_path.write_text(markdown(res))
    return [json_path, md_path]
