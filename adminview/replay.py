"""Replaying dead letters through the same handler as the stream (Lambda's and the poller's alike)."""

from __future__ import annotations

from dataclasses import dataclass

from adminview import sync_store
from adminview.handler import handle_records
from adminview.sync_store import DeadLetter


@dataclass(frozen=True)
class Replayed:
    letter: DeadLetter
    error: str | None  # None: applied (or already applied) and removed from the store
    attempts: int

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def line(self) -> str:
        if self.ok:
            return f"applied: {self.letter.position}"
        return f"still failing: {self.letter.position} attempts={self.attempts}: {self.error}"


def replay(letter: DeadLetter) -> Replayed:
    """Apply the stored record. On success the dead letter is deleted; a record that still fails stays, its
    attempts counted by the handler and its error replaced by the new one."""
    _response, outcome = handle_records([letter.record])
    if outcome.failed:
        error = next(iter(outcome.failed.values()))
        again = sync_store.dead_letter(letter.key)
        return Replayed(letter, error, again.attempts if again else letter.attempts + 1)
    sync_store.remove_dead_letter(letter.key)
    return Replayed(letter, None, letter.attempts)
