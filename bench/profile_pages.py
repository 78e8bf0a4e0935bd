"""``python -m bench.profile_pages``: where a page's time goes inside Django.

Seeds a small shop into its own DynamoDB Local, then requests each page many times through Django's test client
(the whole stack: middleware, session, auth, view, template) under cProfile, and prints per page: the time per
request, the time in DynamoDB calls (botocore: building the request and parsing the answer), and the parts of
Django's own time (session and user lookups, template rendering, ...), then the top functions by own time
across all pages. Times are CPU time of the request's thread (``time.thread_time``), not wall-clock: they do
not depend on what else the machine runs, and waiting for DynamoDB costs nothing (the pending page's shard
queries run in worker threads, so they are not counted).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from collections.abc import Callable
from typing import Any

# (label, file suffix, function name): cumulative time of these functions, per request.
PARTS: list[tuple[str, str, str]] = [
    ("DynamoDB calls (botocore)", "botocore/client.py", "_make_api_call"),
    ("session (signed cookie, kept)", "dashboard/sessions.py", "load"),
    ("user (kept, or one query)", "contrib/auth/__init__.py", "get_user"),
    ("template rendering", "template/response.py", "render"),
    ("view function", "core/handlers/base.py", "_get_response"),
    ("test client request", "django/test/client.py", "request"),
]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.profile_pages", description=(__doc__ or "").split("\n\n")[1])
    p.add_argument("--orders", type=int, default=500, help="orders seeded (default 500)")
    p.add_argument("--repeat", type=int, default=40, help="requests per page (default 40)")
    p.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    p.add_argument(
        "--timing", action="store_true", help="no profiler: p50 per page through Django and at its data layer"
    )
    return p


def timing(client: Any, subjects: Any, repeat: int) -> None:
    """The benchmark's two columns for each page (``stages.pages``: request and data layer alternately)."""
    from bench import report, stages

    measured = stages.pages(client, subjects, repeats=repeat)
    for line in report.django_time_lines(measured["page"], measured["data"]):
        print(line)


def _cumulative(stats: pstats.Stats, suffix: str, name: str) -> float:
    total = 0.0
    for (filename, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if func == name and filename.endswith(suffix):
            total += ct
    return total


def profile(get: Callable[[], Any], repeat: int) -> tuple[pstats.Stats, float]:
    get()  # warm: imports, template compilation, connections
    profiler = cProfile.Profile(time.thread_time)
    started = time.thread_time()
    profiler.enable()
    for _ in range(repeat):
        get()
    profiler.disable()
    elapsed = time.thread_time() - started
    return pstats.Stats(profiler), elapsed


def main(argv: list[str] | None = None) -> int:
    opts = parser().parse_args(argv)
    from bench import env, stages, sync
    from shop import seeding

    env.setup_django()
    import logging

    logging.getLogger("adminview").setLevel(logging.WARNING)
    with env.dynamodb(), env.fresh_tables("profile"):
        plan = seeding.plan(stages.seed_config(opts.orders))
        reader = sync.poller()
        seeding.run(plan, workers=8)
        sync.sync(reader)
        subjects = stages.choose_subjects(plan)
        client = stages.staff_client()
        assert client is not None, "the dashboard is not installed"
        if opts.timing:
            timing(client, subjects, opts.repeat)
            return 0
        urls = stages.page_urls(subjects) | {"customer": f"/customers/{subjects.customer_id}/"}
        combined: pstats.Stats | None = None
        print(f"{opts.orders} orders, {opts.repeat} requests per page; CPU ms of the request thread, cProfile on\n")
        for name, url in urls.items():

            def get(url: str = url) -> None:
                response = client.get(url)
                if response.status_code != 200:
                    raise RuntimeError(f"GET {url} answered {response.status_code}")

            stats, elapsed = profile(get, opts.repeat)
            per = 1000.0 / opts.repeat
            parts = ", ".join(f"{label} {_cumulative(stats, s, f) * per:.1f}" for label, s, f in PARTS)
            print(f"{name:9} {elapsed * per:6.1f} CPU ms/request: {parts}")
            combined = stats if combined is None else combined.add(stats)
        assert combined is not None
        out = io.StringIO()
        combined.stream = out  # type: ignore[attr-defined]
        combined.sort_stats("tottime").print_stats(opts.top)
        print("\nTop functions by own time, all pages together:")
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip()).split("ncalls", 1)[-1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
