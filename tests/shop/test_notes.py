"""Staff notes on orders and customers: bounded text, one item per version in the partition it is about, written
with its audit entry in one conditional transaction; only the author edits, and an edit keeps what came before."""

from __future__ import annotations

from datetime import datetime

import pytest
from pynamodb.exceptions import PutError

from shop import keys, notes, orders
from shop.audit import Actor
from shop.errors import InvalidInput, NotFound, NotYours
from shop.models import AuditEntry, Note, ShopItem
from tests import factories

ANN, BOB = Actor("ann", "req-1"), Actor("bob", "req-2")


@pytest.fixture
def one_placed_order(shop_table: str) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(
        customer_id="1001", lines=[orders.OrderLine("2001", 1)], order_id="N1", placed_at=datetime(2026, 4, 1, 12)
    )


def audit_of(pk: str) -> list[AuditEntry]:
    return [e for e in AuditEntry.query(pk, AuditEntry.sk.startswith(keys.AUDIT)) if isinstance(e, AuditEntry)]


# --- pure ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "x" * 2001, None, 42])
def test_a_note_is_1_to_2000_characters_after_stripping(text: object) -> None:
    with pytest.raises(InvalidInput):
        notes.note_text(text)


def test_a_note_keeps_its_text_stripped_up_to_the_limit() -> None:
    assert notes.note_text("  a\nb  ") == "a\nb"
    assert notes.note_text(" " + "x" * 2000 + " ") == "x" * 2000


def test_a_note_key_sorts_by_time_and_its_id_names_it_in_a_url() -> None:
    early = keys.note(datetime(2026, 1, 2, 3, 4, 5, 6), "0a1b2c3d")
    late = keys.note(datetime(2026, 1, 2, 3, 4, 5, 7), "00000000")
    assert early == "n#20260102T030405000006#0a1b2c3d" and early < late
    note_id = keys.note_id(early)
    assert note_id == "20260102T030405000006-0a1b2c3d"
    assert keys.note_key(note_id) == early
    for bad in ("x", "20260102T030405000006-0A1B2C3D", "20260102T030405000006#0a1b2c3d", "../"):
        with pytest.raises(keys.InvalidId):
            keys.note_key(bad)


def test_versions_make_one_note_each_newest_note_first() -> None:
    first = Note(pk="o#1", sk="n#20260101T000000000000#00000001", text="a", user="ann", at="t1")
    second = Note(pk="o#1", sk="n#20260102T000000000000#00000002", text="b", user="bob", at="t2")
    edit = Note(pk="o#1", sk="n#20260103T000000000000#00000003", text="a2", user="ann", at="t3")
    edit.original = keys.note_id(first.sk)
    found = notes.threads([edit, second, first])
    assert [t.latest.text for t in found] == ["b", "a2"]
    assert [t.edited for t in found] == [False, True]
    assert found[1].note_id == keys.note_id(first.sk) and found[1].first.user == "ann"


# --- against DynamoDB Local ----------------------------------------------------------------------------------


def test_an_order_note_is_an_item_of_the_order_partition_with_its_audit_entry(one_placed_order: None) -> None:
    written = notes.note_add(about="order", entity_id="N1", text="  Called the customer  ", actor=ANN)
    stored = Note.get(written.pk, written.sk).attributes_as_read()
    assert stored is not None and stored["PK"] == {"S": "o#N1"} and stored["EntityType"] == {"S": "note"}
    assert written.sk.startswith("n#") and written.text == "Called the customer"
    collection = orders.order_collection("N1")
    assert [n.text for n in collection.notes] == ["Called the customer"]
    (entry,) = [e for e in collection.history if e.action == notes.ADDED]
    assert entry.user == "ann" and entry.detail == "order N1: Called the customer"


def test_a_customer_note_is_in_the_customer_partition_with_its_audit_entry(one_placed_order: None) -> None:
    notes.note_add(about="customer", entity_id="1001", text="Prefers email", actor=BOB)
    assert [n.text for n in notes.notes_of(about="customer", entity_id="1001")] == ["Prefers email"]
    (entry,) = audit_of("c#1001")
    assert (entry.action, entry.user, entry.detail) == (notes.ADDED, "bob", "customer 1001: Prefers email")


def test_a_note_on_nothing_writes_nothing(one_placed_order: None) -> None:
    with pytest.raises(NotFound):
        notes.note_add(about="order", entity_id="nope", text="x", actor=ANN)
    with pytest.raises(NotFound):
        notes.note_add(about="customer", entity_id="9999", text="x", actor=ANN)
    assert notes.notes_of(about="customer", entity_id="9999") == []
    assert audit_of("c#9999") == []


def test_an_edit_is_a_new_version_and_the_original_stays(one_placed_order: None) -> None:
    first = notes.note_add(about="order", entity_id="N1", text="Ring at 5", actor=ANN)
    note_id = keys.note_id(first.sk) or ""
    notes.note_edit(about="order", entity_id="N1", note_id=note_id, text="Ring at 6", actor=ANN)
    versions = orders.order_collection("N1").notes
    assert [(v.text, v.original) for v in versions] == [("Ring at 5", None), ("Ring at 6", note_id)]
    (thread,) = notes.threads(versions)
    assert thread.latest.text == "Ring at 6" and thread.edited and thread.note_id == note_id
    actions = [e.action for e in orders.order_collection("N1").history]
    assert actions.count(notes.EDITED) == 1 and actions.count(notes.ADDED) == 1


def test_only_the_author_edits_a_note_and_only_its_first_version(one_placed_order: None) -> None:
    first = notes.note_add(about="customer", entity_id="1001", text="VIP", actor=ANN)
    note_id = keys.note_id(first.sk) or ""
    with pytest.raises(NotYours):
        notes.note_edit(about="customer", entity_id="1001", note_id=note_id, text="not VIP", actor=BOB)
    edit = notes.note_edit(about="customer", entity_id="1001", note_id=note_id, text="VIP!", actor=ANN)
    with pytest.raises(NotFound):
        notes.note_edit(about="customer", entity_id="1001", note_id=keys.note_id(edit.sk) or "", text="y", actor=ANN)
    with pytest.raises(NotFound):
        notes.note_edit(
            about="customer", entity_id="1001", note_id="20200101T000000000000-00000000", text="y", actor=ANN
        )
    assert [n.text for n in notes.notes_of(about="customer", entity_id="1001")] == ["VIP", "VIP!"]


def test_a_note_id_never_overwrites_another(one_placed_order: None) -> None:
    first = notes.note_add(about="order", entity_id="N1", text="one", actor=ANN)
    again = Note(pk=first.pk, sk=first.sk, text="two", user="bob", at=first.at)
    with pytest.raises(PutError):
        again.save(ShopItem.pk.does_not_exist())
    assert [n.text for n in orders.order_collection("N1").notes] == ["one"]
