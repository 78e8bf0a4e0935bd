"""The one retry policy: exponential backoff with full jitter, capped, bounded by a count of sends, a budget of
waiting and the request's deadline, and the limits of each kind of call that retries by hand.

Throttling *errors* are already retried beneath us by botocore's standard retry mode, which never retries a
cancelled transaction, unprocessed batch items, a race lost on a conditional write or a stream batch: those loops
are here. Each names its ``Backoff`` below and reads it when it starts (``backoff.BATCHES``), so a test may swap it.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

from dynamo import deadline

_MAX_EXPONENT = 32  # past this the cap has long applied; keeps 2**attempt a float
T = TypeVar("T")


def full_jitter(attempt: int, *, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Seconds to wait before retry ``attempt`` (0-based): uniform(0, min(cap, base * 2**attempt)).

    Full jitter spreads competing retries out, so writers that collided once rarely collide again."""
    return (rng or random).uniform(0, min(cap, base * (2 ** min(attempt, _MAX_EXPONENT))))


class LostRace(Exception):
    """Raised by an attempt that lost a race and may simply run again from its reads (``Backoff.rerun``)."""


@dataclass(frozen=True)
class Backoff:
    """Full-jitter pauses (``base_s`` doubling up to ``cap_s``) between the sends of one call: at most ``attempts``
    sends and ``budget_s`` of pausing, and no pause that would reach the deadline in force (``dynamo.deadline``)."""

    base_s: float
    cap_s: float
    attempts: int = sys.maxsize
    budget_s: float = math.inf
    sleep: Callable[[float], None] = time.sleep

    def start(self) -> Pauses:
        return Pauses(self)

    def sends(self, sleep: Callable[[float], None] | None = None) -> Iterator[Pauses]:
        """One turn per send: the first at once, each next after a pause, until the limits end them."""
        pauses = (self if sleep is None else replace(self, sleep=sleep)).start()
        if self.attempts < 1:
            return
        yield pauses
        while pauses.pause():
            yield pauses

    def rerun(self, action: Callable[[], T], *, gave_up: Exception) -> T:
        """``action()``, run again from its reads each time it raises ``LostRace``; ``gave_up`` once the limits end."""
        for _ in self.sends():
            try:
                return action()
            except LostRace:
                continue
        raise gave_up


@dataclass
class Pauses:
    """One call's pauses so far (``Backoff.start``)."""

    policy: Backoff
    taken: int = 0
    waited: float = 0.0

    def pause(self) -> bool:
        """Sleep before the next send; False, without sleeping, once the sends or the budget are spent or when the
        pause would reach the deadline in force: a send after it would be refused anyway."""
        left = self.policy.budget_s - self.waited
        if left <= 0 or self.taken + 1 >= self.policy.attempts:
            return False
        delay = min(left, full_jitter(self.taken, base=self.policy.base_s, cap=self.policy.cap_s))
        until_deadline = deadline.remaining()
        if until_deadline is not None and delay >= until_deadline:
            return False
        self.policy.sleep(delay)
        self.taken += 1
        self.waited += delay
        return True


# Unprocessed items of a BatchWriteItem / BatchGetItem: DynamoDB hands back what a partition had no room for.
BATCHES = Backoff(base_s=0.05, cap_s=5.0, attempts=10)
# A transaction cancelled for capacity or a conflict: a shortfall lasts seconds, and the sync's Lambda function has
# 60 s for a whole batch.
TRANSACTIONS = Backoff(base_s=0.05, cap_s=5.0, budget_s=30.0)
# A staff action whose condition lost a race (stock, an order's version): read again and decide again, soon.
RACES = Backoff(base_s=0.01, cap_s=1.0, attempts=8)
# A stream batch's failed records, applied again before they stay in the dead-letter store.
STREAM_BATCHES = Backoff(base_s=0.1, cap_s=5.0, attempts=3)
# An anchor the sync lost to another writer, whose records are folded again at once: that writer is done.
ANCHOR_RACES = Backoff(base_s=0.0, cap_s=0.0, attempts=6)
# A partition the sync keeps writing while the repair reads and rewrites it, before it is reported contended.
REPAIRS = Backoff(base_s=0.05, cap_s=2.0, attempts=10)
# One order's repair from its page: a person waits for it.
ORDER_REPAIRS = Backoff(base_s=0.05, cap_s=1.0, attempts=4)
