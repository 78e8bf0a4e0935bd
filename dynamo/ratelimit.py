"""Keeping an operator job (backfill, rebuild) under a capacity budget, so live traffic keeps its share.

``parse_rate_limit`` reads the ``--rate-limit`` flag; ``TokenBucket`` enforces it on the capacity units
DynamoDB reports as consumed.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any


class TokenBucket:
    """Token bucket on consumed capacity units, shared by every worker thread. Calls first wait until the
    balance is not negative, then pay what DynamoDB says they consumed (which may push it below zero:
    the next caller waits for the debt to refill). ``rate`` None: unlimited. ``burst_s``: how many seconds of
    the rate may be spent at once, at the start and after a pause (0: an even pace from the first call on)."""

    def __init__(
        self,
        rate: float | None,
        *,
        burst_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if rate is not None and rate <= 0:
            raise ValueError("a rate limit must be positive")
        self.rate = rate
        self._clock, self._sleep = clock, sleep
        self._capacity = (rate or 0.0) * burst_s
        self._balance = self._capacity
        self._last = clock()
        self._lock = threading.Lock()

    def _refill(self) -> None:
        now = self._clock()
        if self.rate is not None:
            self._balance = min(self._capacity, self._balance + (now - self._last) * self.rate)
        self._last = now

    def wait(self) -> None:
        if self.rate is None:
            return
        while True:
            with self._lock:
                self._refill()
                if self._balance >= 0:
                    return
                delay = -self._balance / self.rate
            self._sleep(delay)

    def spend(self, units: float) -> None:
        if self.rate is None:
            return
        with self._lock:
            self._refill()
            self._balance -= units


def parse_rate_limit(text: str | None, table: dict[str, Any] | None = None) -> tuple[float | None, float | None]:
    """``--rate-limit`` (docs/migrations.md, "The steps" (4); ``table``: its DescribeTable, for ``P%``) as the read
    and write rates, None: unlimited; a ``ValueError`` with a message fit for the command line."""
    value = (text or "").strip()
    if not value:
        return None, None
    if value.endswith("%"):
        try:
            share = float(value[:-1]) / 100.0
        except ValueError as exc:
            raise ValueError(f"rate limit {text!r} is not a percentage like 25%") from exc
        if not 0 < share <= 1:
            raise ValueError(f"rate limit {text!r} must be a share between 0% and 100%")
        throughput = (table or {}).get("ProvisionedThroughput") or {}
        rcu, wcu = throughput.get("ReadCapacityUnits") or 0, throughput.get("WriteCapacityUnits") or 0
        billing = ((table or {}).get("BillingModeSummary") or {}).get("BillingMode")
        if billing == "PAY_PER_REQUEST" or not (rcu and wcu):
            raise ValueError(
                "the table is on-demand (no provisioned capacity to take a share of): "
                "give capacity units per second instead, e.g. --rate-limit 200"
            )
        return max(1.0, rcu * share), max(1.0, wcu * share)
    try:
        units = float(value)
    except ValueError as exc:
        raise ValueError(f"rate limit {text!r} is neither units per second (200) nor a share (25%)") from exc
    if not math.isfinite(units) or units <= 0:
        raise ValueError(f"rate limit {text!r} must be a positive number of capacity units per second")
    return units, units
