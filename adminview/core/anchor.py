"""Anchors: the one view item per group of source items that records what has been applied to the view, and the
one planner of every write that moves an anchor (``plan``), used by the sync, the rebuild and the repair alike.

An anchor holds its group's facts (the part of each source item the view reads), from which its entries and sums
follow (``Implied``), and its bookkeeping: ``Seqs`` (per source item, the last sequence number applied: an older
record changes nothing), ``Rev`` (every write is conditioned on the one its writer read), ``AppliedAt``, and on a
stub ``Gone`` and ``ExpiresAt``. Why each makes the view exact, and why a stub may expire once no record it guards
against can still arrive (``too_old`` refuses the late dead-letter replay that could): ``docs/admin-view.md``,
"Anchors", and ``docs/repair.md``, "Expiry of stub anchors".
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from adminview.core import guard, numbers, schema, values
from adminview.core.values import Item as Item

SEQS, APPLIED_AT, GONE, EXPIRES_AT = "Seqs", "AppliedAt", "Gone", "ExpiresAt"
REV = guard.REV
BOOKKEEPING = (SEQS, REV, APPLIED_AT, GONE, EXPIRES_AT)
STREAM_RETENTION_S = 24 * 3600
LIFETIME_S = 48 * 3600
CLOCK_MARGIN_S = 3600  # ExpiresAt is our clock, ApproximateCreationDateTime is AWS's
MAX_RECORD_AGE_S = LIFETIME_S - CLOCK_MARGIN_S


def seq_number(seq: str) -> int:
    """Sequence numbers are decimal strings of varying length: they compare as numbers."""
    if not seq.isdigit():
        raise ValueError(f"sequence number {seq!r} is not numeric")
    return int(seq)


@dataclass
class Bookkeeping:
    """An anchor's bookkeeping as read (``stored`` False: there is no anchor item)."""

    seqs: dict[str, str] = field(default_factory=dict)
    rev: int | None = None
    applied_at: float | None = None
    stored: bool = False
    gone: bool = False

    @classmethod
    def read(cls, item: Item | None) -> Bookkeeping:
        if item is None:
            return cls()
        seqs = {sk: seq for sk, value in values.mapping(item, SEQS).items() if (seq := values.as_string(value))}
        return cls(seqs, values.integer(item, REV), values.number(item, APPLIED_AT), True, GONE in item)

    def is_new(self, sk: str, seq: str) -> bool:
        seen = self.seqs.get(sk)
        return seen is None or seq_number(seq) > seq_number(seen)

    def too_old(self, sk: str, created: object, now: float | None = None) -> bool:
        """A record that must not be applied: its source item has no applied sequence number and the record is old
        enough that a newer one's stub may have expired (no creation time: judged by its sequence number alone)."""
        if sk in self.seqs or not isinstance(created, int | float):
            return False
        return float(created) < (now if now is not None else time.time()) - MAX_RECORD_AGE_S

    def condition(self) -> dict[str, Any]:
        """The write's condition: the anchor is still the one read (``adminview.core.guard``)."""
        return guard.unchanged(stored=self.stored, rev=self.rev)


def without_bookkeeping(item: Item) -> Item:
    return {name: value for name, value in item.items() if name not in BOOKKEEPING}


@dataclass(frozen=True)
class Implied:
    """What one anchor's facts imply: its own item (facts, no bookkeeping; None: it describes nothing), its
    entries, and what it adds to the numbers (None: an anchor of a kind that adds nothing has no counted item)."""

    key: schema.Key
    anchor: Item | None
    entries: dict[schema.Key, Item] = field(default_factory=dict)
    sums: numbers.Sums | None = None

    def items(self) -> dict[schema.Key, Item]:
        """Every view item implied, the anchor first."""
        found = {self.key: self.anchor} if self.anchor is not None else {}
        return found | self.entries


def stub(key: schema.Key, kind: str) -> Item:
    return {**values.key(*key), schema.KIND: kind}


def anchor_item(
    implied: Implied, book: Bookkeeping, stub_kind: str, *, applied_at: float | None, keep: bool = False
) -> Item | None:
    """The anchor to write: the implied item with its bookkeeping (``Rev`` + 1); a stub that keeps the sequence
    numbers when the facts describe nothing; None when there is nothing to describe or to guard, unless ``keep``
    (a repair writes a stub even then: its ``Rev`` tells a sync that read the partition before to read again)."""
    if implied.anchor is None and not book.seqs and not keep:
        return None
    item = dict(implied.anchor) if implied.anchor is not None else stub(implied.key, stub_kind)
    if book.seqs:
        item[SEQS] = dict(sorted(book.seqs.items()))
    item[REV] = (book.rev or 0) + 1
    stamp = applied_at if applied_at is not None else book.applied_at
    if stamp is not None:
        item[APPLIED_AT] = round(stamp, 3)
    if implied.anchor is None:
        item[GONE] = 1
        item[EXPIRES_AT] = int(time.time()) + LIFETIME_S
    return item


@dataclass
class Writes:
    """What makes the view follow one anchor from ``before`` to ``after``: the entries to put or delete, the
    anchor's conditioned write (or delete), and what it now adds to the numbers (None: nothing, ever)."""

    key: schema.Key
    entries: dict[schema.Key, Item | None]  # None: delete
    anchor: Item | None  # None with ``delete_anchor`` False: the anchor stays as it is
    delete_anchor: bool
    condition: dict[str, Any]
    sums: numbers.Sums | None
    stored: bool = False  # the guard's view of the anchor as read (``condition`` in parts, for a PartiQL write)
    rev: int | None = None

    def anchor_action(self, table: str) -> dict[str, Any] | None:
        """The anchor's write as a PutItem/DeleteItem (or transaction) body, condition included, values plain."""
        if self.anchor is not None:
            return {"Put": {"TableName": table, "Item": self.anchor, **self.condition}}
        if self.delete_anchor:
            return {"Delete": {"TableName": table, "Key": values.key(*self.key), **self.condition}}
        return None


def plan(
    before: Implied,
    after: Implied,
    book: Bookkeeping,
    stub_kind: str,
    *,
    seen: set[schema.Key] | frozenset[schema.Key] = frozenset(),
    applied_at: float | None = None,
    keep: bool = False,
) -> Writes:
    """The writes that take the view from what ``before`` implies to what ``after`` implies.

    ``book``: the anchor's bookkeeping as read (its ``Rev`` conditions the write) with the sequence numbers now
    applied; ``seen``: entries implied on the way (by states folded in between), deleted unless ``after``
    implies them too, so a batch that crashed half-way leaves nothing behind when a longer one follows it;
    ``keep``: write the anchor (a stub, if it describes nothing) rather than delete or skip it."""
    entries: dict[schema.Key, Item | None] = {
        key: None for key in (set(before.entries) | set(seen)) - set(after.entries)
    }
    entries |= {key: item for key, item in after.entries.items() if before.entries.get(key) != item}
    anchor = anchor_item(after, book, stub_kind, applied_at=applied_at, keep=keep)
    return Writes(
        key=after.key,
        entries=entries,
        anchor=anchor,
        delete_anchor=anchor is None and book.stored,
        condition=book.condition(),
        sums=after.sums,
        stored=book.stored,
        rev=book.rev,
    )
