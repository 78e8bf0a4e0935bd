"""Timing and DynamoDB-cost samples: every measured action runs inside ``dynamo.instrumentation.recording()``."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dynamo.instrumentation import CallLog, recording


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass
class Sample:
    calls: int
    round_trips: int
    rcu: float
    wcu: float
    items: int
    ms: float
    operations: dict[str, int]
    extra: dict[str, Any] = field(default_factory=dict)


def sample_of(log: CallLog, ms: float, **extra: Any) -> Sample:
    return Sample(
        calls=log.count,
        round_trips=log.round_trips,
        rcu=log.read_units,
        wcu=log.write_units,
        items=sum(c.items or 0 for c in log.calls),
        ms=ms,
        operations=log.by_operation(),
        extra=extra,
    )


def run_once(fn: Callable[[], Any]) -> tuple[Sample, Any]:
    """Run ``fn`` once and return what it cost. ``fn`` may return a dict with an ``"extra"`` entry (merged in)."""
    with recording() as log:
        started = time.perf_counter()
        result = fn()
        ms = (time.perf_counter() - started) * 1000.0
    extra = result.get("extra", {}) if isinstance(result, dict) else {}
    return sample_of(log, ms, **extra), result


def summarize(samples: list[Sample]) -> dict[str, Any]:
    """The figures a table row shows. Calls/round trips/RCU/items are the worst seen (they should not vary)."""
    times = [s.ms for s in samples]
    out: dict[str, Any] = {
        "repeats": len(samples),
        "calls": max(s.calls for s in samples),
        "round_trips": max(s.round_trips for s in samples),
        "rcu": round(max(s.rcu for s in samples), 2),
        "items_read": max(s.items for s in samples),
        "p50_ms": round(percentile(times, 50) or 0.0, 2),
        "p95_ms": round(percentile(times, 95) or 0.0, 2),
        "operations": samples[-1].operations,
    }
    for key, value in samples[-1].extra.items():
        out[key] = value
    return out


def repeat(fn: Callable[[], Any], times: int, *, warmup: int = 1) -> dict[str, Any]:
    for _ in range(warmup):
        fn()
    return summarize([run_once(fn)[0] for _ in range(max(1, times))])


def alternate(
    first: Callable[[], Any], second: Callable[[], Any], times: int, *, warmup: int = 1
) -> tuple[list[Sample], list[Sample]]:
    """``first`` then ``second``, ``times`` times over: two series measured under the same conditions."""
    for _ in range(warmup):
        first()
        second()
    pairs = [(run_once(first)[0], run_once(second)[0]) for _ in range(max(1, times))]
    return [a for a, _ in pairs], [b for _, b in pairs]
