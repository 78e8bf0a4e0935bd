"""``python -m bench.profile_pages``: where a page's time goes inside Django.

Seeds a small shop into its own DynamoDB Local, then requests each page many times through Django's test client
(the whole stack: middleware, session, auth, view, template) under cProfile, and prints per page: the time per
request, the time in DynamoDB calls (botocore: building the request and parsing the answer), and the parts of
Django's own time (session and user lookups, template rendering, ...), then the top functions by own time
across all pages. Times are CPU time of the request's thread (``time.thread_time``), not wall-clock: they do
not depend on what else the machine runs, and waiting for DynamoDB costs nothing (the pending page's shard
queries run in worker threads, so they are not counted).

``--load-pages`` runs no profiler: the load test's pages (``bench.load``) as its accounts see them, alternating in
a random order, with per page the median CPU of the request's thread and of this whole process (the pending
page's shard queries run in worker threads), the engine's mean CPU per request (read from ``/proc``; its clock
ticks are 10 ms), the SQL queries and the DynamoDB calls.

``--phases`` runs no profiler: it times each request and the parts of it named in ``PHASES`` (wall-clock, p50
per page), the way they cost inside real requests, which is more than the same code costs when timed in a loop
of its own.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import io
import pstats
import random
import re
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# (label, file suffix, function name): cumulative time of these functions, per request.
PARTS: list[tuple[str, str, str]] = [
    ("DynamoDB calls (botocore)", "botocore/client.py", "_make_api_call"),
    ("session (signed cookie)", "sessions/backends/signed_cookies.py", "load"),
    ("user (one query)", "contrib/auth/__init__.py", "get_user"),
    ("template rendering", "template/response.py", "render"),
    ("view function", "core/handlers/base.py", "_get_response"),
    ("test client request", "django/test/client.py", "request"),
]


# (label, module, attribute): wall-clock time inside these per request (``--phases``). The DynamoDB calls of the
# pending page run in parallel threads, so its figure is their sum, more than the time they took.
PHASES: list[tuple[str, str, str]] = [
    ("DynamoDB calls", "botocore.client", "BaseClient._make_api_call"),
    ("user", "django.contrib.auth", "get_user"),
    ("CSRF token", "django.template.context_processors", "get_token"),
    ("URL resolve", "django.core.handlers.base", "BaseHandler.resolve_request"),
    ("template rendering", "django.template.response", "SimpleTemplateResponse.render"),
]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.profile_pages", description=(__doc__ or "").split("\n\n")[1])
    p.add_argument("--orders", type=int, default=500, help="orders seeded (default 500)")
    p.add_argument("--repeat", type=int, default=40, help="requests per page (default 40)")
    p.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    p.add_argument(
        "--timing", action="store_true", help="no profiler: p50 per page through Django and at its data layer"
    )
    p.add_argument("--phases", action="store_true", help="no profiler: p50 per page of the parts named in PHASES")
    p.add_argument("--load-pages", action="store_true", help="no profiler: CPU, SQL and DynamoDB calls per request")
    return p


def load_pages(engine: Any, plan: Any, repeat: int) -> None:
    """The load test's pages, as its browsing and fulfilment accounts (``bench.load.run``) ask them."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from bench import cpu
    from bench.load import run
    from dynamo.instrumentation import recording

    subjects, rng = run.subjects(plan, 1), random.Random(1)
    run.make_accounts()
    clients = {role: Client() for role in (*run.ACCOUNTS, "nobody")}
    login = {}
    for role, (username, password) in run.ACCOUNTS.items():
        started = time.thread_time()
        assert clients[role].post("/accounts/login/", {"username": username, "password": password}).status_code == 302
        login[role] = time.thread_time() - started
    pending = clients["browser"].get("/orders/pending/").content.decode()
    found = re.search(r'class="load-more" href="([^"]+)"', pending)  # as the load test follows it
    assert found, "the pending list has one page only: seed more orders"
    start, end = subjects["invoice_range"]

    def pages() -> dict[str, tuple[str, str]]:
        cid, invoices = rng.choice(subjects["customers"]), f"?from={start}&to={end}"
        return {
            "login page": ("nobody", "/accounts/login/"),
            "pending": ("browser", "/orders/pending/"),
            "pending, next page": ("browser", found.group(1).replace("&amp;", "&")),
            "pending CSV": ("browser", "/orders/pending/?format=csv"),
            "order": ("browser", f"/orders/{rng.choice(subjects['orders'])}/"),
            "order, fulfilment": ("fulfilment", f"/orders/{rng.choice(subjects['orders'])}/"),
            "customer": ("browser", f"/customers/{cid}/"),
            "invoices": ("browser", f"/customers/{cid}/invoices/{invoices}"),
            "invoices CSV": ("browser", f"/customers/{cid}/invoices/{invoices}&format=csv"),
            "buyers": ("browser", f"/products/{rng.choice(subjects['products'])}/buyers/"),
            "home": ("browser", "/"),
        }

    def measure(role: str, url: str) -> dict[str, float]:
        with CaptureQueriesContext(connection) as queries, recording() as calls:
            before = (time.thread_time(), time.process_time(), cpu.process_cpu_s(engine.pid) or 0.0)
            response = clients[role].get(url)
            if response.streaming:
                b"".join(response.streaming_content)  # type: ignore[attr-defined]
            after = (time.thread_time(), time.process_time(), cpu.process_cpu_s(engine.pid) or 0.0)
        if response.status_code != 200:
            raise RuntimeError(f"GET {url} answered {response.status_code}")
        spent = [(b - a) * 1000 for a, b in zip(before, after, strict=True)]
        return dict(zip(("thread", "process", "engine"), spent, strict=True)) | {
            "sql": len(queries.captured_queries),
            "calls": calls.count,
        }

    for role, url in pages().values():
        measure(role, url)  # warm
    measured: dict[str, list[dict[str, float]]] = {}
    for _ in range(repeat):
        shuffled = list(pages().items())
        rng.shuffle(shuffled)
        for name, (role, url) in shuffled:
            measured.setdefault(name, []).append(measure(role, url))
    shown = ", ".join(f"{role} {seconds * 1000:.0f} ms" for role, seconds in login.items())
    print(f"{repeat} requests per page; CPU ms per request. A login's thread: {shown}\n")
    print(f"{'page':20} {'thread':>7} {'process':>7} {'engine':>7} {'SQL':>4} {'calls':>5}")
    for name in sorted(measured):
        got = measured[name]
        p50 = {k: statistics.median(m[k] for m in got) for k in ("thread", "process", "sql", "calls")}
        cpu_ms = f"{p50['thread']:7.2f} {p50['process']:7.2f} {statistics.mean(m['engine'] for m in got):7.2f}"
        print(f"{name:20} {cpu_ms} {p50['sql']:4.0f} {p50['calls']:5.0f}")


def timing(client: Any, subjects: Any, repeat: int) -> None:
    """The benchmark's two columns for each page (``stages.pages``: request and data layer alternately)."""
    from bench import report, stages

    measured = stages.pages(client, subjects, repeats=repeat, fulfiller=stages.staff_client(fulfilment=True))
    for line in report.django_time_lines(measured["page"], measured["data"]):
        print(line)


@contextmanager
def timed_phases() -> Iterator[dict[str, float]]:
    """Wrap each of ``PHASES``; the dict yielded adds up the seconds spent in each (clear it between requests)."""
    spent: dict[str, float] = {}
    lock = threading.Lock()
    restore: list[tuple[Any, str, Any]] = []

    def wrapped(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                with lock:
                    spent[label] = spent.get(label, 0.0) + time.perf_counter() - started

        return timed

    for label, module, attribute in PHASES:
        owner: Any = importlib.import_module(module)
        *path, name = attribute.split(".")
        for part in path:
            owner = getattr(owner, part)
        original = owner.__dict__[name]
        restore.append((owner, name, original))
        setattr(owner, name, wrapped(label, original))
    try:
        yield spent
    finally:
        for owner, name, original in reversed(restore):
            setattr(owner, name, original)


def phases(clients: dict[str, Any], urls: dict[str, str], repeat: int) -> None:
    """Per page: the request's p50, the p50 of each phase, and of the rest: middleware, view code, and building
    models from DynamoDB's answers (which the data layer does too)."""
    with timed_phases() as spent:
        for name, url in urls.items():
            client = clients[name]
            client.get(url)  # warm
            totals: list[float] = []
            parts: dict[str, list[float]] = {label: [] for label, _, _ in PHASES}
            rests: list[float] = []
            for _ in range(repeat):
                spent.clear()
                started = time.perf_counter()
                response = client.get(url)
                totals.append(time.perf_counter() - started)
                if response.status_code != 200:
                    raise RuntimeError(f"GET {url} answered {response.status_code}")
                for label in parts:
                    parts[label].append(spent.get(label, 0.0))
                rests.append(totals[-1] - sum(spent.values()))
            shown = ", ".join(f"{label} {statistics.median(values) * 1000:.2f}" for label, values in parts.items())
            rest = statistics.median(rests) * 1000
            print(
                f"{name:9} request {statistics.median(totals) * 1000:6.2f} ms: {shown}; "
                + (f"the rest {rest:.2f}" if rest >= 0 else "calls in parallel (their sum is more than they took)")
            )


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
    with env.dynamodb() as engine, env.fresh_tables("profile"):
        plan = seeding.plan(stages.seed_config(opts.orders))
        reader = sync.poller()
        seeding.run(plan, workers=8)
        sync.sync(reader)
        if opts.load_pages:
            load_pages(engine, plan, opts.repeat)
            return 0
        subjects = stages.choose_subjects(plan)
        client = stages.staff_client()
        assert client is not None, "the dashboard is not installed"
        if opts.timing:
            timing(client, subjects, opts.repeat)
            return 0
        urls = stages.page_urls(subjects) | {"customer": f"/customers/{subjects.customer_id}/"}
        clients = stages.page_clients(client, stages.staff_client(fulfilment=True), subjects) | {"customer": client}
        if opts.phases:
            print(f"{opts.orders} orders, {opts.repeat} requests per page; wall-clock ms, p50 per part\n")
            phases(clients, urls, opts.repeat)
            return 0
        combined: pstats.Stats | None = None
        print(f"{opts.orders} orders, {opts.repeat} requests per page; CPU ms of the request thread, cProfile on\n")
        for name, url in urls.items():

            def get(url: str = url, client: Any = clients[name]) -> None:
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
