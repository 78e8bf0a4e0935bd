"""CPU seconds a stage costs: the engine's (our own DynamoDB Local, when the run started it), this process's, and
its child processes' (the repair commands). On one machine the seeder, the sync and the engine share the cores,
so a stage's pace is bounded by the CPU it needs per item; these figures say where that CPU goes (Linux ``/proc``;
None elsewhere, or for an engine we did not start)."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable
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

    def since(self, start: Snapshot) -> dict[str, float | None]:
        """CPU seconds spent between ``start`` and this snapshot."""
        engine = None if self.engine_s is None or start.engine_s is None else self.engine_s - start.engine_s
        return {
            "engine_s": None if engine is None else round(engine, 2),
            "bench_s": round(self.bench_s - start.bench_s, 2),
            "children_s": round(self.children_s - start.children_s, 2),
        }
