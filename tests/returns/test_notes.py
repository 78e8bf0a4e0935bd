"""Staff notes on a return: items of the return's partition of the returns table, read with the return in one
Query, each written with its audit entry (in the order's partition of the shop table) in one transaction."""

from __future__ import annotations

import pytest

from returns import access_patterns as rap
from returns import notes
from returns.models import ReturnNote
from shop import keys, orders
from shop import notes as shop_notes
from shop.audit import Actor
from shop.errors import InvalidInput, NotFound, NotYours
from tests.returns.conftest import STAFF, delivered, requested

pytestmark = pytest.mark.usefixtures("two_customers_two_products")


def test_a_return_note_is_in_the_return_partition_and_read_with_the_return() -> None:
    delivered()
    requested()
    written = notes.note_add(return_id="r1", text=" Photo of the damage received ", actor=STAFF)
    stored = ReturnNote.get(written.pk, written.sk).attributes_as_read()
    assert stored is not None and stored["PK"] == {"S": "r#r1"} and stored["EntityType"] == {"S": "note"}
    item, found = rap.return_and_notes(return_id="r1")
    assert item is not None and item.return_id == "r1"
    assert [n.text for n in found] == ["Photo of the damage received"]
    (entry,) = [e for e in orders.order_collection("5001").history if e.action == shop_notes.ADDED]
    assert entry.user == "rita" and entry.detail == "return r1: note: Photo of the damage received"


def test_a_return_note_is_bounded_and_needs_the_return() -> None:
    delivered()
    requested()
    with pytest.raises(InvalidInput):
        notes.note_add(return_id="r1", text=" ", actor=STAFF)
    with pytest.raises(InvalidInput):
        notes.note_add(return_id="r1", text="x" * 2001, actor=STAFF)
    with pytest.raises(NotFound):
        notes.note_add(return_id="r9", text="x", actor=STAFF)
    assert rap.return_and_notes(return_id="r1")[1] == []


def test_a_return_note_edit_keeps_the_original_and_is_the_author_s_alone() -> None:
    delivered()
    requested()
    first = notes.note_add(return_id="r1", text="Courier booked", actor=STAFF)
    note_id = keys.note_id(first.sk) or ""
    with pytest.raises(NotYours):
        notes.note_edit(return_id="r1", note_id=note_id, text="mine now", actor=Actor("someone"))
    notes.note_edit(return_id="r1", note_id=note_id, text="Courier booked for Monday", actor=STAFF)
    (thread,) = shop_notes.threads(rap.return_and_notes(return_id="r1")[1])
    assert [v.text for v in thread.versions] == ["Courier booked", "Courier booked for Monday"]
    assert thread.edited and thread.latest.original == note_id
