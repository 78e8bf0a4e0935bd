"""The one retry delay: exponential backoff with full jitter, and a budget of waiting built on it.

Used wherever we retry by hand (unprocessed batch items, races on a conditional write, stream batches, transactions
cancelled for capacity or a conflict); throttling *errors* are already retried beneath us by botocore's standard
retry mode, which never retries a cancelled transaction.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from dynamo import deadline

_MAX_EXPONENT = 32  # past this the cap has long applied; keeps 2**attempt a float


def full_jitter(attempt: int, *, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Seconds to wait before retry ``attempt`` (0-based): uniform(0, min(cap, base * 2**attempt)).

    Full jitter spreads competing retries out, so writers that collided once rarely collide again."""
    return (rng or random).uniform(0, min(cap, base * (2 ** min(attempt, _MAX_EXPONENT))))


@dataclass(frozen=True)
class Backoff:
    """Full-jitter pauses (``base_s`` doubling up to ``cap_s``) between sends of one call, until ``budget_s`` of
    pausing is spent. Bounded by time, not by a count: a capacity shortfall lasts seconds whatever the pauses were."""

    base_s: float
    cap_s: float
    budget_s: float
    sleep: Callable[[float], None] = time.sleep

    def start(self) -> Pauses:
        return Pauses(self)


@dataclass
class Pauses:
    """One call's pauses so far (``Backoff.start``)."""

    policy: Backoff
    taken: int = 0
    waited: float = 0.0

    def pause(self) -> bool:
        """Sleep before the next send; False, without sleeping, once the budget is spent or when the pause would
        reach the deadline in force (``dynamo.deadline``): a send after it would be refused anyway."""
        left = self.policy.budget_s - self.waited
        if left <= 0:
            return False
        delay = min(left, full_jitter(self.taken, base=self.policy.base_s, cap=self.policy.cap_s))
        until_deadline = deadline.remaining()
        if until_deadline is not None and delay >= until_deadline:
            return False
        self.policy.sleep(delay)
        self.taken += 1
        self.waited += delay
        return True
