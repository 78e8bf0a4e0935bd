"""The one retry policy: sends counted, pauses capped and jittered, none that would reach the request's deadline."""

from __future__ import annotations

import pytest

from dynamo import deadline
from dynamo.backoff import Backoff, LostRace


def test_sends_stop_at_the_attempts_with_a_pause_between_each() -> None:
    slept: list[float] = []
    sends = list(Backoff(base_s=0.05, cap_s=0.1, attempts=4, sleep=slept.append).sends())
    assert len(sends) == 4 and len(slept) == 3 and all(0 <= s <= 0.1 for s in slept)


def test_no_pause_reaches_the_deadline() -> None:
    slept: list[float] = []
    with deadline.within(0.0):
        sends = list(Backoff(base_s=1.0, cap_s=1.0, attempts=5, sleep=slept.append).sends())
    assert len(sends) == 1 and slept == []


def test_rerun_runs_again_after_a_lost_race_then_gives_up() -> None:
    runs: list[int] = []

    def lose() -> int:
        runs.append(1)
        raise LostRace

    with pytest.raises(ValueError, match="gave up"):
        Backoff(base_s=0.0, cap_s=0.0, attempts=3, sleep=lambda _: None).rerun(lose, gave_up=ValueError("gave up"))
    assert len(runs) == 3
