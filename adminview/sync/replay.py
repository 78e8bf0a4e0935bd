"""Replaying a dead letter: apply the stored record again, then remove it and audit who did, in one transaction.

The record goes through the stream's own apply (the anchors' sequence numbers make it replay-safe). Once it
applied, one TransactWriteItems deletes the dead letter, conditioned on it still being there, and puts the staff
member's audit entry in the shop table: two staff replaying one letter at once leave one entry, and a replay that
still fails writes none.
"""

from __future__ import annotations

from dataclasses import dataclass

from adminview.sync import sync_store
from adminview.sync.apply import apply_records
from adminview.sync.sync_store import DEAD_LETTER_PK, DeadLetter
from adminview.tables import SyncItem
from dynamo.transactions import Transaction, TransactionCancelled
from shop import audit, keys
from shop.audit import Actor

ACTION = "replay"
_LETTER = "dead letter"


@dataclass(frozen=True)
class Replayed:
    letter: DeadLetter
    error: str | None  # None: applied (or already applied) and removed from the store
    attempts: int
    audited: bool = False  # False when someone else removed the letter first (their replay is the audited one)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def line(self) -> str:
        if not self.ok:
            return f"still failing: {self.letter.position} attempts={self.attempts}: {self.error}"
        if not self.audited:
            return f"applied: {self.letter.position} (already removed by another replay)"
        return f"applied: {self.letter.position}"


def concerned_order(letter: DeadLetter) -> str | None:
    """The order whose partition the record is of (an order, its items, invoices...), for the audit entry."""
    pk, _sk = letter.source
    if pk is None or not pk.startswith(keys.ORDER):
        return None
    try:
        return keys.bare(pk, keys.ORDER)
    except keys.InvalidId:
        return None


def replay(letter: DeadLetter, actor: Actor) -> Replayed:
    """Apply the stored record. On success the dead letter is removed with ``actor``'s audit entry; a record
    that still fails stays, its attempts counted and its error replaced by the new one."""
    outcome = apply_records([letter.record])
    if outcome.failed:
        error = next(iter(outcome.failed.values()))
        return Replayed(letter, error, sync_store.store_dead_letter(letter.record, error))
    tx = Transaction(SyncItem)
    tx.delete(_LETTER, SyncItem(DEAD_LETTER_PK, letter.key), SyncItem.pk.exists())
    audit.record(tx, actor, action=ACTION, order_id=concerned_order(letter), detail=letter.position, system=True)
    try:
        tx.commit()
    except TransactionCancelled as exc:
        if exc.failed("ConditionalCheckFailed") != [_LETTER]:
            error = f"applied, but the dead letter could not be removed ({exc}); replaying it again is safe"
            return Replayed(letter, error, letter.attempts)
        return Replayed(letter, None, letter.attempts)
    return Replayed(letter, None, letter.attempts, audited=True)
