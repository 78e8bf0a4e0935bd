"""Staff notes on a return, in its partition of the returns table (``shop.notes`` holds the rules both tables'
notes share), each audited in the order's partition of the shop table like the return's other actions
(``services.about``): see docs/returns.md, "The pages".
"""

from __future__ import annotations

from dynamo.paging import get_or_none
from dynamo.transactions import Transaction, TransactionCancelled
from returns import access_patterns, keys
from returns.models import ReturnNote, ReturnsItem
from returns.services import about
from shop import audit
from shop import keys as shop_keys
from shop import notes as shop_notes
from shop.audit import Actor
from shop.errors import Busy, NotFound


def note_add(*, return_id: str, text: str, actor: Actor) -> ReturnNote:
    """NotFound when there is no such return."""
    return _write(keys.return_id(return_id), shop_notes.note_text(text), actor, original=None)


def note_edit(*, return_id: str, note_id: str, text: str, actor: Actor) -> ReturnNote:
    """Write a new version of note ``note_id`` (its first version's id), conditioned on that note being there and
    being ``actor``'s; the versions before stay."""
    original = shop_keys.note_key(note_id)
    return _write(keys.return_id(return_id), shop_notes.note_text(text), actor, original=original)


def _write(rid: str, text: str, actor: Actor, *, original: str | None) -> ReturnNote:
    item = access_patterns.return_by_id(return_id=rid, consistent=True)
    if item is None:
        raise NotFound("return", rid)
    pk = keys.return_key(rid)
    tx = Transaction(ReturnsItem)
    tx.check("about", ReturnsItem, pk, pk, ReturnsItem.pk.exists())
    if original is not None:
        first = (ReturnNote.user == actor.username) & ReturnNote.original.does_not_exist()
        tx.check("original", ReturnsItem, pk, original, first)
    new = shop_notes.new_note()
    note_id = shop_keys.note_id(original) if original else None
    note = ReturnNote(pk=pk, sk=new.sk, text=text, user=actor.username, at=new.at, original=note_id)
    tx.put("note", note, ReturnsItem.pk.does_not_exist())
    action = shop_notes.EDITED if original else shop_notes.ADDED
    detail = about(rid, f"note: {shop_notes.shortened(text)}")
    audit.record(tx, actor, action=action, order_id=item.order_id, detail=detail)
    try:
        tx.commit()
    except TransactionCancelled as exc:
        if exc.only_conflicts:
            raise Busy(f"return {rid} is being changed by another request; the note was not saved, try again") from exc
        if "about" in exc.reasons:
            raise NotFound("return", rid) from exc
        first = get_or_none(ReturnNote, pk, original or "")
        raise shop_notes.not_editable(first, original or "", actor) from exc
    return note
