"""Write-to-page lag with the sync following the stream as it runs in production: the product's poller
(``adminview.sync.poller.Poller`` with ``run(follow=True)`` in a thread, its own poll interval), first idle, then while
a bulk writer (``manage.py seed_shop`` in a child process, another seed) adds customers, products and orders to
the same tables: at half the seeding stage's pace (``seed_shop --rate``), and at full speed.

A sample is ``order_place`` until the order is on ``/orders/pending/``, so it includes the poll interval and,
under load, the backlog the writer leaves the sync. Under load one order is placed every ``PLACE_EVERY_S`` while
the writer writes, and each is timed until the page shows it (the page is looked at all the while), so the
samples spread over the writer's run; before the next writer starts, the poller is let catch up. Goals: p95 within
1 s idle (reported), within 2 s beside a writer at half speed (a gate: ``bench.gates``; full speed has none).

This stage runs last: the writers' orders stay in the table (and are pending, some of them), so a stage after it
would see a bigger shop.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from adminview.sync.poller import Poller
from bench import gates, repair, stages
from bench.measure import percentile
from shop import keys, seeding
from shop.models import Inventory

IDLE_GOAL_MS, LOAD_GOAL_MS = 1000.0, gates.HALF_SPEED_LAG_P95_MS  # the load goal (gate 8): beside a half-speed writer
HALF, FULL = "half", "full"
SPEEDS = (HALF, FULL)
PLACE_EVERY_S = 0.25  # under load: one order placed this often while the writer writes
LOOK_EVERY_S = 0.05  # pause between two looks at the page (a look renders it: the poller shares the process)
SAMPLE_TIMEOUT_S = 30.0  # idle: an order not on the page by then fails the stage
START_TIMEOUT_S = 3600.0  # the writer first scans the table's keys (seed_shop numbers ids after the highest)
SEEN_TIMEOUT_S = 900.0  # under load: orders not on the page by then are reported as unseen
SETTLE_TIMEOUT_S = 600.0  # between two writers: the poller is given this long to take in the first's backlog
MIN_WRITER_ORDERS = 100
WRITER_SLACK_S = 2.0  # the writer writes this much longer than the samples take to place (its start is seen late)
# A writer held to a rate keeps exactly its pace, with nothing spare: it is sized for this many times the samples'
# placing (each look at the page between two placings takes time on a loaded machine) and a longer slack.
RATED_WRITER_STRETCH, RATED_WRITER_SLACK_S = 2.0, 5.0
# Sizing a full-speed writer, its pace is guessed high (twice the seeding stage's, at least this): a writer that
# ends before the samples are placed leaves fewer of them; one that lasts longer only makes the stage longer.
WRITER_FLOOR_ITEMS_PER_S = 3000.0
PAGE = "/orders/pending/"
WRITER_SAYS = re.compile(r"\((?P<items>\d+) items\) in (?P<seconds>[\d.]+)s: (?P<items_per_s>\d+) items/s")


class NotingPoller(Poller):
    """The product's poller, counting the records it receives as they arrive (before it applies them): the
    writer's first records tell that it writes, without waiting for a whole batch to be applied."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.received = 0

    def process(self, records: list[dict[str, Any]], *, shard_id: str | None = None) -> None:
        self.received += len(records)
        super().process(records, shard_id=shard_id)


class Following:
    """The product's poller following the stream in a thread, as ``sync_adminview --follow`` runs it."""

    def __init__(self) -> None:
        self.poller = NotingPoller.for_sources()
        self.thread = threading.Thread(target=self.poller.run, kwargs={"follow": True}, daemon=True)

    def __enter__(self) -> Following:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.poller.stop()
        self.thread.join(timeout=120)

    @property
    def records(self) -> int:
        """Records received so far (applied, or being applied)."""
        return self.poller.received


@dataclass(frozen=True)
class Load:
    """A bulk writer to measure the lag beside: how fast (``HALF``, ``FULL``), what it writes, and the items/s
    it is held to (``seed_shop --rate``; None at full speed)."""

    speed: str
    config: seeding.SeedConfig
    rate: float | None


def loads(
    speeds: Sequence[str], *, samples: int, seeding_items_per_s: float, items_per_order: float, seed: int
) -> list[Load]:
    """The writers to run, each sized to write a little longer than the samples take to place (a writer at half
    speed is held to half the seeding stage's items/s; one at full speed is sized at a pace guessed high)."""
    found = []
    for n, speed in enumerate(speeds, start=1):
        rate = seeding_items_per_s / 2 if speed == HALF else None
        placing = samples * PLACE_EVERY_S
        if rate is None:
            seconds, pace = placing + WRITER_SLACK_S, max(2 * seeding_items_per_s, WRITER_FLOOR_ITEMS_PER_S)
        else:
            seconds, pace = RATED_WRITER_STRETCH * placing + RATED_WRITER_SLACK_S, rate
        orders = writer_orders(seconds, pace, items_per_order)
        config = stages.seed_config(orders, seed=seed + n, uncategorized=0.0)
        found.append(Load(speed, config, None if rate is None else round(rate, 1)))
    return found


class Writer:
    """``manage.py seed_shop`` in a child process, writing ``config`` into the same tables (its output to
    ``output``), at most ``rate`` items/s (None: as fast as it can); see ``bulk_writer``."""

    def __init__(self, config: seeding.SeedConfig, output: IO[bytes], rate: float | None = None) -> None:
        self.config = config
        self.output = output
        counts = {"customers": config.customers, "products": config.products, "warehouses": config.warehouses}
        args = [f"--{name}={value}" for name, value in {**counts, "orders": config.orders}.items()]
        args += [f"--rate={rate}"] if rate is not None else []
        self.started = time.perf_counter()
        self.child = subprocess.Popen(
            [sys.executable, "manage.py", "seed_shop", *args, f"--seed={config.seed}", "--no-progress"],
            cwd=repair.REPO_ROOT,
            env=repair.child_env(),
            stdout=self.output,
            stderr=subprocess.STDOUT,
        )

    @property
    def alive(self) -> bool:
        return self.child.poll() is None

    def finish(self, timeout_s: float) -> dict[str, Any]:
        """Wait for the writer to end (stopped after ``timeout_s``); what it wrote and how fast, as it says."""
        try:
            self.child.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.child.terminate()
            self.child.wait(timeout=30)
        seconds = time.perf_counter() - self.started
        self.output.seek(0)
        lines = [line for line in self.output.read().decode(errors="replace").splitlines() if line.strip()]
        said = next((found for line in reversed(lines) if (found := WRITER_SAYS.search(line))), None)
        return {
            "command": f"manage.py seed_shop --orders={self.config.orders} --seed={self.config.seed} ...",
            "exit": self.child.returncode,
            "orders": self.config.orders,
            "seconds": round(seconds, 2),
            "items": int(said["items"]) if said else None,
            "writing_seconds": float(said["seconds"]) if said else None,
            "items_per_s": float(said["items_per_s"]) if said else None,
            "output": lines[-2:],
        }


@contextmanager
def bulk_writer(config: seeding.SeedConfig, rate: float | None = None) -> Iterator[Writer]:
    """A writer started now; killed on the way out if it is still running (a stage that failed)."""
    with tempfile.TemporaryFile() as output:
        writer = Writer(config, output, rate)
        try:
            yield writer
        finally:
            if writer.alive:
                writer.child.kill()
                writer.child.wait(timeout=30)


def writer_orders(seconds: float, pace_items_per_s: float, items_per_order: float) -> int:
    """Orders for a writer that writes for ``seconds`` at ``pace_items_per_s`` (at least ``MIN_WRITER_ORDERS``)."""
    return max(MIN_WRITER_ORDERS, math.ceil(seconds * pace_items_per_s / max(1.0, items_per_order)))


def placer(plan: seeding.SeedPlan) -> Callable[[], tuple[str, float]]:
    """Places a one-line order of the best-stocked product for the plan's first customer; returns its id and
    when it was written."""
    from shop.orders import OrderLine, order_place

    stock = max((i for i in plan.catalog if isinstance(i, Inventory)), key=lambda i: i.quantity or 0)
    product_id, customer_id = keys.strip(stock.pk), plan.first_customer_id
    assert customer_id is not None

    def place() -> tuple[str, float]:
        order = order_place(customer_id=customer_id, lines=[OrderLine(product_id, 1)])
        return keys.strip(order.pk), time.perf_counter()

    return place


def _on_page(page: Any, order_ids: list[str]) -> set[str]:
    content = page.get(PAGE).content.decode()
    return {oid for oid in order_ids if oid in content}


def idle_lags(place: Callable[[], tuple[str, float]], page: Any, samples: int) -> list[float]:
    """One order at a time, each until the page shows it."""
    lags: list[float] = []
    for _ in range(samples):
        oid, written = place()
        while not _on_page(page, [oid]):
            if time.perf_counter() - written > SAMPLE_TIMEOUT_S:
                raise RuntimeError(f"order {oid} not on {PAGE} after {SAMPLE_TIMEOUT_S:g} s (the sync following)")
            time.sleep(LOOK_EVERY_S)
        lags.append(time.perf_counter() - written)
    return lags


def loaded_lags(
    place: Callable[[], tuple[str, float]], page: Any, samples: int, writer: Writer
) -> tuple[list[float], int]:
    """Orders placed every ``PLACE_EVERY_S`` while the writer writes (at most ``samples``), each timed until the
    page shows it; returns the lags and how many were still not shown after ``SEEN_TIMEOUT_S``."""
    placed: dict[str, float] = {}
    lags: dict[str, float] = {}
    next_at = time.perf_counter()
    while True:
        if len(placed) < samples and writer.alive and time.perf_counter() >= next_at:
            oid, written = place()
            placed[oid], next_at = written, written + PLACE_EVERY_S
        waiting = [oid for oid in placed if oid not in lags]
        for oid in _on_page(page, waiting) if waiting else set():
            lags[oid] = time.perf_counter() - placed[oid]
        done_placing = len(placed) >= samples or not writer.alive
        last = max(placed.values(), default=time.perf_counter())
        if done_placing and (not waiting or time.perf_counter() - last > SEEN_TIMEOUT_S):
            return list(lags.values()), len(placed) - len(lags)
        time.sleep(LOOK_EVERY_S)


def _figures(lags_s: list[float], goal_ms: float | None) -> dict[str, Any]:
    if not lags_s:
        return {"samples": 0, "p50_ms": None, "p95_ms": None, "goal_p95_ms": goal_ms, "meets": None}
    p50, p95 = (round((percentile(lags_s, q) or 0.0) * 1000.0, 1) for q in (50, 95))
    meets = None if goal_ms is None else p95 <= goal_ms
    return {"samples": len(lags_s), "p50_ms": p50, "p95_ms": p95, "goal_p95_ms": goal_ms, "meets": meets}


def settle(following: Following, *, timeout_s: float = SETTLE_TIMEOUT_S) -> None:
    """Wait until the poller receives nothing new for two poll intervals (a writer's backlog taken in)."""
    quiet_s, deadline = 2 * following.poller.idle_s, time.perf_counter() + timeout_s
    seen, since = following.records, time.perf_counter()
    while time.perf_counter() < deadline and time.perf_counter() - since < quiet_s:
        time.sleep(LOOK_EVERY_S)
        if following.records != seen:
            seen, since = following.records, time.perf_counter()


def beside(
    load: Load, place: Callable[[], tuple[str, float]], page: Any, samples: int, following: Following
) -> dict[str, Any]:
    """The lag while ``load``'s writer writes, and the writer's own pace as it reports it."""
    before = following.records
    with bulk_writer(load.config, load.rate) as writer:
        deadline = time.perf_counter() + START_TIMEOUT_S
        while following.records == before and writer.alive and time.perf_counter() < deadline:
            time.sleep(LOOK_EVERY_S)
        writing = following.records > before
        loaded, unseen = loaded_lags(place, page, samples, writer) if writing else ([], 0)
        written = writer.finish(SEEN_TIMEOUT_S)
    goal = LOAD_GOAL_MS if load.speed == HALF else None
    return {
        "rate_items_per_s": load.rate,
        "loaded": _figures(loaded, goal) | {"unseen": unseen, "placed_every_s": PLACE_EVERY_S},
        "writer": written | {"wrote_while_sampled": writing},
    }


def follow_lag(plan: seeding.SeedPlan, *, samples: int, page: Any, writers: Sequence[Load]) -> dict[str, Any]:
    """Idle, then beside each writer (``loads``) in turn."""
    place = placer(plan)
    with Following() as following:
        idle = idle_lags(place, page, samples)
        under_load = {}
        for load in writers:
            settle(following)  # the samples' (or the last writer's) records applied
            under_load[load.speed] = beside(load, place, page, samples, following)
        poll_s = following.poller.idle_s
    return {"poll_interval_s": poll_s, "idle": _figures(idle, IDLE_GOAL_MS), "under_load": under_load}
