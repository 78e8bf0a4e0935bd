"""The load test's world and its run: DynamoDB Local (in memory) with seeded and synced tables, a staff
database (a throwaway PostgreSQL when its binaries are installed, else an SQLite file), gunicorn serving the
dashboard with DEBUG off, then locust (headless, loopback only) for a bounded time. Afterwards every ship or
cancel that answered success must show in the shop table. Exits 1 on any 5xx, any error or any lost action."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench import env, postgres, stages, sync
from bench.load import report
from dynamo import local

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
ROOT = Path(__file__).resolve().parents[2]
LOCUSTFILE = Path(__file__).resolve().parent / "locustfile.py"
ACCOUNTS = {"browser": ("load-staff", "load-staff-pw-4821"), "fulfilment": ("load-packer", "load-packer-pw-7315")}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.load", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--users", type=int, default=10, help="concurrent staff (default 10)")
    p.add_argument("--duration", type=int, default=60, help="seconds of load (default 60)")
    p.add_argument("--orders", type=int, default=2000, help="orders seeded (default 2000)")
    p.add_argument("--think", type=float, default=1.0, help="mean think time between a user's requests, s (default 1)")
    p.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    p.add_argument("--threads", type=int, help="threads per gunicorn worker (default: gunicorn.conf.py's)")
    p.add_argument("--database", choices=["auto", "postgresql", "sqlite"], default="auto", help="staff database")
    p.add_argument("--out", type=Path, default=RESULTS_DIR, help=f"results directory (default {RESULTS_DIR})")
    p.add_argument("--name", help="file stem (default load-<users>)")
    return p


def log(text: str) -> None:
    print(text, flush=True)


@contextlib.contextmanager
def staff_database(choice: str) -> Iterator[str]:
    """DATABASE_URL for the run: PostgreSQL when asked or available, else an SQLite file."""
    reason = postgres.available()
    if choice == "postgresql" and reason:
        raise SystemExit(f"error: {reason}")
    if choice == "sqlite" or (choice == "auto" and reason):
        yield f"sqlite:///{Path(tempfile.mkdtemp(prefix='load-db-')) / 'db.sqlite3'}"
        return
    with postgres.throwaway() as cluster:
        yield cluster.create_database("shopadmin")


def make_accounts() -> None:
    from django.contrib.auth.models import Group, User

    for role, (username, password) in ACCOUNTS.items():
        user = User.objects.create_user(username, f"{username}@example.com", password, is_staff=True)
        if role == "fulfilment":
            user.groups.add(Group.objects.get(name="fulfilment"))


def subjects(plan: Any, fulfilment_users: int) -> dict[str, Any]:
    """Ids to browse, and the pending orders split into one pool per fulfilment user."""
    rng = random.Random(7)
    customers = sorted({o.customer_id for o in plan.orders})
    products = sorted({line.product_id for o in plan.orders for line in o.lines})
    orders = [o.order_id for o in plan.orders]
    pending = [o.order_id for o in plan.orders if o.status == "PENDING"]
    rng.shuffle(pending)
    pools = max(1, fulfilment_users)
    return {
        "accounts": ACCOUNTS,
        "customers": rng.sample(customers, min(200, len(customers))),
        "products": rng.sample(products, min(100, len(products))),
        "orders": rng.sample(orders, min(300, len(orders))),
        "invoice_range": list(stages.INVOICE_YEAR),
        "action_pools": [pending[i::pools] for i in range(pools)],
        "pending": len(pending),
    }


def start_gunicorn(opts: argparse.Namespace, workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = local.free_port()
    server_env = os.environ.copy()
    server_env.update({"DJANGO_DEBUG": "0", "DJANGO_ALLOWED_HOSTS": "127.0.0.1", "PYTHONPATH": str(ROOT)})
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "config.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(opts.workers),
        *(["--threads", str(opts.threads)] if opts.threads else []),
        "--log-level",
        "warning",
    ]  # the rest (worker class, threads, keep-alive, timeouts) from the repository's gunicorn.conf.py
    log_file = open(workdir / "gunicorn.log", "ab")  # noqa: SIM115 (kept open for the child)
    process = subprocess.Popen(command, cwd=ROOT, env=server_env, stdout=log_file, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not local.port_open(port):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"error: gunicorn did not start; see {workdir / 'gunicorn.log'}")
        time.sleep(0.1)
    return process, f"http://127.0.0.1:{port}"


def run_locust(opts: argparse.Namespace, host: str, workdir: Path, subjects_file: Path) -> Path:
    record = workdir / "record.json"
    locust_env = os.environ.copy()
    locust_env.update(
        {
            "LOAD_SUBJECTS": str(subjects_file),
            "LOAD_RECORD": str(record),
            "LOAD_THINK_S": str(opts.think),
            "LOAD_FULFILMENT_USERS": str(fulfilment_users(opts.users)),
        }
    )
    spawn_rate = max(1, opts.users // 10)
    command = [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(LOCUSTFILE),
        "--headless",
        "--users",
        str(opts.users),
        "--spawn-rate",
        str(spawn_rate),
        "--run-time",
        f"{opts.duration}s",
        "--host",
        host,
        "--csv",
        str(workdir / "locust"),
        "--only-summary",
        "--loglevel",
        "WARNING",
        "--exit-code-on-error",
        "0",
    ]
    done = subprocess.run(command, cwd=ROOT, env=locust_env, capture_output=True, text=True)
    if done.returncode != 0 or not record.exists():
        raise SystemExit(f"error: locust failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return record


def lost_actions(actions: list[dict[str, str]]) -> list[dict[str, str]]:
    """Actions that answered success but whose order does not have the status they set."""
    from shop.order_reads import order_collection

    wanted = {"ship": "SHIPPED", "cancel": "CANCELLED"}
    lost = []
    for action in actions:
        status = order_collection(action["order_id"]).order.status
        if str(status) != wanted[action["action"]]:
            lost.append(action | {"status": str(status)})
    return lost


def fulfilment_users(users: int) -> int:
    """One in ten users ships and cancels (at least one)."""
    return max(1, round(users / 10))


def run(opts: argparse.Namespace) -> dict[str, Any]:
    from shop import seeding

    workdir = Path(tempfile.mkdtemp(prefix="load-"))
    logging.getLogger("adminview").setLevel(logging.WARNING)
    with staff_database(opts.database) as database_url:
        os.environ["DATABASE_URL"] = database_url
        os.environ["DJANGO_SECRET_KEY"] = "load-" + os.urandom(24).hex()
        env.setup_django()
        make_accounts()
        with env.dynamodb() as engine, env.fresh_tables("load"):
            plan = seeding.plan(stages.seed_config(opts.orders))
            log(f"DynamoDB Local at {engine.endpoint}; seeding {opts.orders:,} orders")
            reader = sync.poller()
            seeded = seeding.run(plan, workers=8)
            synced = sync.sync(reader)
            log(f"seeded {seeded:,} items; admin view synced ({synced.get('records')} stream records)")
            chosen = subjects(plan, fulfilment_users(opts.users))
            subjects_file = workdir / "subjects.json"
            subjects_file.write_text(json.dumps(chosen))
            server, host = start_gunicorn(opts, workdir)
            threads = opts.threads or "the configured"
            try:
                log(f"gunicorn at {host} ({opts.workers} workers x {threads} threads); {opts.users} users")
                started = time.time()
                record_file = run_locust(opts, host, workdir, subjects_file)
                elapsed = time.time() - started
            finally:
                server.terminate()
                server.wait(timeout=30)
            record = json.loads(record_file.read_text())
            lost = lost_actions(record["actions"])
    return report.results(
        opts=vars(opts) | {"out": str(opts.out)},
        database="postgresql" if database_url.startswith("postgres") else "sqlite",
        stats_csv=workdir / "locust_stats.csv",
        record=record,
        lost=lost,
        pending=chosen["pending"],
        seeded_items=seeded,
        elapsed_s=elapsed,
    )


def main(argv: list[str] | None = None) -> int:
    opts = parser().parse_args(argv)
    for name in ("users", "duration", "orders", "workers", "threads"):
        if getattr(opts, name) is not None and getattr(opts, name) < 1:
            parser().error(f"--{name} must be at least 1")
    if opts.think < 0:
        parser().error("--think must not be negative")
    opts.name = opts.name or f"load-{opts.users}"
    try:
        results = run(opts)
    except local.DynamoDBLocalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    paths = report.write(results, opts.out, opts.name)
    print(report.markdown(results))
    print("written: " + ", ".join(str(p) for p in paths))
    if results["failures"]:
        print("FAIL: " + "; ".join(results["failures"]), file=sys.stderr)
        return 1
    return 0
