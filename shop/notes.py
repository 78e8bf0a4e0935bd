"""Staff notes on an order or a customer, and the parts the returns service shares for its own (``returns.notes``):
see docs/staff-work.md, "Notes and the timeline". An edit's condition on the first version keeps it to the note's
author even against a forged form.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, Protocol, TypeVar

from dynamo.paging import get_or_none
from dynamo.transactions import Transaction, TransactionCancelled
from shop import audit, keys
from shop.audit import Actor
from shop.errors import Busy, InvalidInput, NotFound, NotYours
from shop.models import Note, ShopItem
from shop.order_reads import order_by_id

MAX_TEXT = 2000
ADDED, EDITED = "note-added", "note-edited"  # audit actions: /activity/ filters on "note"
SHOWN = 120  # characters of a note's text its audit entry's Detail keeps
ABOUT = ("order", "customer")


def note_text(value: object) -> str:
    """A note's text as kept: stripped, 1 to ``MAX_TEXT`` characters; InvalidInput otherwise."""
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        raise InvalidInput("a note needs some text")
    if len(text) > MAX_TEXT:
        raise InvalidInput(f"a note is at most {MAX_TEXT} characters (this one has {len(text)})")
    return text


def shortened(text: str) -> str:
    """A note's text on one line, cut to ``SHOWN`` characters, for its audit entry's ``Detail``."""
    line = " ".join(text.split())
    return line if len(line) <= SHOWN else line[: SHOWN - 1] + "\u2026"


@dataclass(frozen=True)
class NewNote:
    """The key and time of a note about to be written (``at`` as audit entries write it)."""

    sk: str
    at: str


def new_note() -> NewNote:
    moment = datetime.now(UTC).replace(tzinfo=None)
    return NewNote(keys.note(moment, secrets.token_hex(4)), moment.isoformat(timespec="microseconds"))


class Version(Protocol):
    """One version of a note, whichever table holds it (``shop.models.Note``, ``returns.models.ReturnNote``): what
    threading, the author's check and the edit form read of it (pages show the concrete model's)."""

    @property
    def sk(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def user(self) -> str: ...
    @property
    def original(self) -> str | None: ...


V = TypeVar("V", bound=Version)


@dataclass(frozen=True)
class Thread(Generic[V]):
    """A note as pages show it: the first version (its id, author and time) and every version, oldest first."""

    versions: list[V]

    @property
    def first(self) -> V:
        return self.versions[0]

    @property
    def latest(self) -> V:
        return self.versions[-1]

    @property
    def note_id(self) -> str:
        return keys.note_id(self.first.sk) or ""

    @property
    def edited(self) -> bool:
        return len(self.versions) > 1


def threads(versions: Iterable[V]) -> list[Thread[V]]:
    """Versions grouped into notes, newest first; an edit whose first version is missing stands on its own."""
    by_id: dict[str, list[V]] = {}
    for version in sorted(versions, key=lambda v: v.sk):
        own = keys.note_id(version.sk) or version.sk
        root = version.original if version.original in by_id else own
        by_id.setdefault(root, []).append(version)
    return sorted((Thread(found) for found in by_id.values()), key=lambda t: t.first.sk, reverse=True)


def original_of(versions: Iterable[V], note_id: str, actor: Actor) -> V:
    """The first version of note ``note_id`` among ``versions``, if ``actor`` wrote it: NotFound or NotYours
    otherwise (the write's condition holds the same rule against a race)."""
    sk = keys.note_key(note_id)
    found = next((v for v in versions if v.sk == sk and v.original is None), None)
    if found is None:
        raise NotFound("note", note_id)
    if found.user != actor.username:
        raise NotYours(f"note {note_id} is {found.user}'s: only its author edits it")
    return found


# --- the shop table's notes ----------------------------------------------------------------------------------


def _partition(about: str, entity_id: str) -> str:
    if about == "order":
        return keys.order(entity_id)
    if about == "customer":
        return keys.customer(entity_id)
    raise InvalidInput(f"notes are kept on {', '.join(ABOUT)}, not {about!r}")


def notes_of(*, about: str, entity_id: str) -> list[Note]:
    """A customer's notes, every version: Query PK = c#<cid>, SK begins_with n# (an order's come with it)."""
    found = Note.query(_partition(about, entity_id), Note.sk.startswith(keys.NOTE))
    return [n for n in found if isinstance(n, Note)]


def note_add(*, about: str, entity_id: str, text: str, actor: Actor) -> Note:
    """Write a note on an order or a customer (NotFound when there is none) with its audit entry."""
    return _write(about, entity_id, note_text(text), actor, original=None)


def note_edit(*, about: str, entity_id: str, note_id: str, text: str, actor: Actor) -> Note:
    """Write a new version of note ``note_id``, conditioned on its first version being there and ``actor``'s."""
    return _write(about, entity_id, note_text(text), actor, original=keys.note_key(note_id))


def _write(about: str, entity_id: str, text: str, actor: Actor, *, original: str | None) -> Note:
    pk = _partition(about, entity_id)
    bare = keys.strip(pk)
    tx = Transaction(ShopItem)
    if about == "order":
        order = order_by_id(bare)
        if order is None:
            raise NotFound("order", bare)
        tx.check("about", ShopItem, order.pk, order.sk, ShopItem.pk.exists())
    else:
        tx.check("about", ShopItem, pk, pk, ShopItem.pk.exists())
    if original is not None:
        first = Note.user == actor.username
        tx.check("original", ShopItem, pk, original, first & Note.original.does_not_exist())
    new = new_note()
    note = Note(pk=pk, sk=new.sk, text=text, user=actor.username, at=new.at, original=keys.note_id(original or ""))
    tx.put("note", note, ShopItem.pk.does_not_exist())
    detail = f"{about} {bare}: {shortened(text)}"
    if about == "order":
        audit.record(tx, actor, action=EDITED if original else ADDED, order_id=bare, detail=detail)
    else:
        audit.record_about(tx, actor, action=EDITED if original else ADDED, partition=pk, detail=detail)
    try:
        tx.commit()
    except TransactionCancelled as exc:  # why, from the action that failed
        if exc.only_conflicts:
            raise Busy(
                f"the {about} {bare} is being changed by another request; the note was not saved, try again"
            ) from exc
        if "about" in exc.reasons:
            raise NotFound(about, bare) from exc
        if "original" in exc.reasons and original is not None:
            raise not_editable(get_or_none(Note, pk, original), original, actor) from exc
        raise Busy(f"the note was not saved ({exc}); try again") from exc
    return note


def not_editable(first: Version | None, original: str, actor: Actor) -> Exception:
    """Why an edit's condition on the first version (as read again) failed, for both tables' notes."""
    note_id = keys.note_id(original) or original
    if first is not None and first.user != actor.username:
        return NotYours(f"note {note_id} is {first.user}'s: only its author edits it")
    return NotFound("note", note_id)
