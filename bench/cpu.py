"""CPU seconds a stage costs: the engine's (our own DynamoDB Local, when the run started it), this process's, and
its child processes' (the repair commands). On one machine the seeder, the sync and the engine share the cores,
so a stage's pace is bounded by the CPU it needs per item; these figures say where that CPU goes (Linux ``/proc``;
None elsewhere, or for an engine we did not start)."""

from __future__ import annotations

import os
import resource
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


def _no_engine() -> int | None:
    return None


_engine_pid: Callable[[], int | None] = _no_engine


def watch_engine(pid: Callable[[], int | None]) -> None:
    """How to find the engine process whose CPU the stages report (it changes when the engine restarts; None:
    not ours, not reported)."""
    global _engine_pid
    _engine_pid = pid


def process_cpu_s(pid: int) -> float | None:
    """User plus system CPU seconds of a running process, from ``/proc/<pid>/stat``."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _children_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class Snapshot:
    engine_s: float | None
    bench_s: float
    children_s: float

    @classmethod
    def now(cls) -> Snapshot:
        pid = _engine_pid()
        engine = process_cpu_s(pid) if pid is not None else None
        return cls(engine, time.process_time(), _children_s())

    def engine_since(self, start: Snapshot) -> float | None:
        """The engine's CPU seconds between ``start`` and this snapshot (None: not ours)."""
        return None if self.engine_s is None or start.engine_s is None else self.engine_s - start.engine_s

    def since(self, start: Snapshot) -> dict[str, float | None]:
        """CPU seconds spent between ``start`` and this snapshot."""
        engine = self.engine_since(start)
        return {
            "engine_s": None if engine is None else round(engine, 2),
            "bench_s": round(self.bench_s - start.bench_s, 2),
            "children_s": round(self.children_s - start.children_s, 2),
        }


def load_average() -> list[float]:
    """The machine's load average over 1, 5 and 15 minutes: what else was running shares the CPU figures."""
    return [round(n, 2) for n in os.getloadavg()]


def ms_per(seconds: float | None, count: int | None) -> float | None:
    """Milliseconds per item (None when either is unknown or there are no items)."""
    if seconds is None or not count:
        return None
    return round(1000.0 * seconds / count, 4)


class BusyCpu:
    """This process's CPU seconds while at least one ``span()`` is open: spans opened by parallel threads (the
    poller applies ready shards in parallel) count once, since process time already holds every thread's CPU."""

    def __init__(self, clock: Callable[[], float] = time.process_time) -> None:
        self.seconds = 0.0
        self._clock = clock
        self._open = 0
        self._since = 0.0
        self._lock = threading.Lock()

    @contextmanager
    def span(self) -> Iterator[None]:
        with self._lock:
            if not self._open:
                self._since = self._clock()
            self._open += 1
        try:
            yield
        finally:
            with self._lock:
                self._open -= 1
                if not self._open:
                    self.seconds += self._clock() - self._since


def bare_putitem_ms(sample: int) -> float:
    """The CPU per call of a bare boto3 conditional PutItem (a fresh client, none of the product's hooks),
    one after another into a scratch table of their own: the unit a CPU figure is stated in, so that the machine's
    speed, which moves 2x within an hour, cancels out of a comparison with a figure committed from another run."""
    import uuid

    import boto3

    from dynamo import conf

    client = boto3.client("dynamodb", region_name=conf.region())
    table = f"bench-bare-putitem-{uuid.uuid4().hex[:6]}"
    client.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("PK", "SK")],
        BillingMode="PAY_PER_REQUEST",
    )
    client.get_waiter("table_exists").wait(TableName=table)

    def put(i: int) -> None:
        item = {"PK": {"S": f"bench#putitem#{i}"}, "SK": {"S": "#order"}, "Rev": {"N": "1"}, "Status": {"S": "PAID"}}
        client.put_item(TableName=table, Item=item, ConditionExpression="attribute_not_exists(PK)")

    try:
        put(-1)  # the client's first call loads its models and opens its connection
        began = time.thread_time()  # this thread's alone: the calls are made here, and nothing else is counted
        for i in range(sample):
            put(i)
        return round(1000 * (time.thread_time() - began) / sample, 4)
    finally:
        client.delete_table(TableName=table)
