"""The one planner of an anchor's writes and the sync's fold (``adminview.core.anchor``, ``adminview.sync.apply.fold``):
pure, no DynamoDB; images and items are plain values, as the sync decodes them."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from adminview.core import anchor, numbers, schema, values
from adminview.core.sources.shop import SOURCE, OrderState
from adminview.sync.apply import Prepared, fold

DAY = 24 * 3600


def order(status: str) -> dict[str, Any]:
    return {"PK": "o#1", "SK": "c#9", "EntityType": "order", "Status": status, "Date": "2026-03-04"}


def line(pid: str, category: str = "Books") -> dict[str, Any]:
    return {
        "PK": "o#1",
        "SK": "p#" + pid,
        "EntityType": "orderItem",
        "Quantity": "1",
        "Category": category,
    }


def record(seq: int, image: dict[str, Any] | None, sk: str | None = None) -> Prepared:
    key = values.item_key(image) if image is not None else ("o#1", sk or "")
    return Prepared({"dynamodb": {}}, f"e{seq}", str(seq), SOURCE, key, image, schema.order_anchor("1"), [])


def folded_state(*records: Prepared, stored: dict[str, Any] | None = None) -> tuple[OrderState, anchor.Writes | None]:
    state = OrderState.read(schema.order_anchor("1"), stored)
    result = fold(state, list(records), numbers.Counted(schema.counted(state.key), {}), list_shards=2)
    return state, result.writes


def test_plan_puts_what_changed_deletes_what_is_no_longer_implied_and_guards_the_anchor() -> None:
    _state, writes = folded_state(record(1, order("PENDING")), record(2, line("7")), record(3, line("8", "Garden")))
    assert writes is not None and writes.anchor is not None
    assert writes.condition == {
        "ConditionExpression": "attribute_not_exists(#pk)",
        "ExpressionAttributeNames": {"#pk": "PK"},
    }
    assert writes.anchor["Rev"] == 1 and writes.anchor["Seqs"]["p#8"] == "3"
    assert all(item is not None for item in writes.entries.values())

    _again, later = folded_state(record(4, None, sk="p#8"), stored=writes.anchor)
    assert later is not None and later.condition["ExpressionAttributeValues"] == {":rev": 1}
    deleted = [key for key, item in later.entries.items() if item is None]
    assert deleted == [schema.category_order("Garden", schema.shard_of("1", 2), "2026-03-04", "1")]
    assert "p#8" not in (later.anchor or {})["Lines"]  # the line is gone, its sequence number kept
    assert (later.anchor or {})["Seqs"]["p#8"] == "4"


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=12))
def test_a_replayed_or_stale_record_changes_nothing(replayed: list[int]) -> None:
    history = [record(1, order("PENDING")), record(2, line("7")), record(3, line("8")), record(4, order("SHIPPED"))]
    history += [record(5, None, sk="p#8"), record(6, order("DELIVERED"))]
    _state, writes = folded_state(*history)
    assert writes is not None and writes.anchor is not None
    state, again = folded_state(*(history[n - 1] for n in replayed), stored=writes.anchor)
    assert again is None  # nothing newer than what the anchor says was applied
    assert state.implied(2) == OrderState.read(schema.order_anchor("1"), writes.anchor).implied(2)


def test_entries_of_states_passed_on_the_way_are_deleted_when_the_end_does_not_imply_them() -> None:
    """A crashed batch may have written what a state half-way implied: a longer batch after it deletes it."""
    _state, writes = folded_state(
        record(1, order("PENDING")), record(2, line("8", "Garden")), record(3, None, sk="p#8")
    )
    assert writes is not None
    garden = schema.category_order("Garden", schema.shard_of("1", 2), "2026-03-04", "1")
    assert writes.entries.get(garden, "absent") is None  # deleted, though neither end implies it


def test_a_stub_keeps_the_sequence_numbers_and_expires() -> None:
    _state, writes = folded_state(record(1, order("PENDING")))
    assert writes is not None
    _state, gone = folded_state(record(2, None, sk="c#9"), stored=writes.anchor)
    assert gone is not None and gone.anchor is not None
    assert anchor.GONE in gone.anchor and anchor.EXPIRES_AT in gone.anchor and gone.anchor["Seqs"]["c#9"] == "2"


def test_too_old_judges_by_sequence_number_when_it_can() -> None:
    now = 10 * DAY
    assert anchor.Bookkeeping().too_old("c#9", now - 3 * DAY, now)
    assert not anchor.Bookkeeping(seqs={"c#9": "1"}).too_old("c#9", now - 3 * DAY, now)
    assert not anchor.Bookkeeping().too_old("c#9", now - DAY, now)  # still in the stream's reach
    assert not anchor.Bookkeeping().too_old("c#9", None, now)
    assert anchor.LIFETIME_S >= 2 * anchor.STREAM_RETENTION_S


def test_a_repair_keeps_an_anchor_that_describes_and_guards_nothing_as_a_stub_a_sync_must_read_again() -> None:
    key = schema.order_anchor("9")
    book = anchor.Bookkeeping.read({**values.key(*key), anchor.REV: Decimal(4)})
    nothing = anchor.Implied(key, None)
    assert anchor.plan(nothing, nothing, book, schema.COLLECTION).delete_anchor  # the sync's way: gone
    kept = anchor.plan(nothing, nothing, book, schema.COLLECTION, keep=True)
    assert kept.anchor is not None and not kept.delete_anchor
    assert (values.integer(kept.anchor, anchor.REV), anchor.GONE in kept.anchor) == (5, True)
    assert kept.anchor_action("view") == {"Put": {"TableName": "view", "Item": kept.anchor, **book.condition()}}


def test_an_anchor_and_a_counted_item_carry_the_same_guard() -> None:
    counted = numbers.Counted(schema.counted(schema.order_anchor("1")), {}, rev=4)
    write = numbers.counted_write("view", counted, {("s#day", "2026-03-04"): {"Orders": Decimal(1)}})
    book = anchor.Bookkeeping(rev=4, stored=True)
    assert {name: write["Put"].get(name) for name in book.condition()} == book.condition()
    absent = numbers.counted_write("view", numbers.Counted(counted.key, {}), {})
    assert absent["Delete"]["ConditionExpression"] == anchor.Bookkeeping().condition()["ConditionExpression"]


def test_pack_merges_shared_sums_and_keeps_each_transaction_within_its_limit() -> None:
    day, month, other = ("s#day", "1"), ("s#month", "1"), ("s#day", "2")
    # two writes each and the sums they share counted once: 2 + 2 + 2 sum items = 6 fits, a third does not
    assert numbers.pack([2, 2, 2], [[day, month], [day, month], [other]], limit=6) == [[0, 1], [2]]
    assert numbers.pack([1, 1, 1], [[day], [day], [day]], limit=4) == [[0, 1, 2]]
    assert numbers.pack([9, 1], [[day], [day]], limit=5) == [[0], [1]]  # too large: alone
    assert numbers.pack([], [], limit=5) == []
