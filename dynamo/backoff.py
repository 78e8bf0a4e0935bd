"""The one retry delay: exponential backoff with full jitter.

Used wherever we retry by hand (unprocessed batch items, races on a conditional write, stream batches);
throttling errors are already retried beneath us by botocore's standard retry mode.
"""

from __future__ import annotations

import random


def full_jitter(attempt: int, *, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Seconds to wait before retry ``attempt`` (0-based): uniform(0, min(cap, base * 2**attempt)).

    Full jitter spreads competing retries out, so writers that collided once rarely collide again."""
    return (rng or random).uniform(0, min(cap, base * (2**attempt)))
