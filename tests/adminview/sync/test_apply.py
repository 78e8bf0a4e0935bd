"""The sync's anchor writes on DynamoDB Local, on both paths: a stored anchor's attributes it no longer has are
removed, a stale ``Rev`` or a key written meanwhile loses the race, and an anchor too long for a statement is put."""

from __future__ import annotations

from typing import Any

import pytest

from adminview.core import guard
from adminview.core.anchor import Writes
from adminview.sync import apply
from adminview.tables import read_items, view_client
from dynamo import item_codec

KEY = ("o#1", "#order")


def writes(anchor: dict[str, Any], *, stored: bool, rev: int | None) -> Writes:
    condition = guard.unchanged(stored=stored, rev=rev)
    return Writes(KEY, {}, {"PK": KEY[0], "SK": KEY[1], **anchor}, False, condition, None, stored=stored, rev=rev)


def test_an_anchor_is_inserted_then_updated_its_lost_attributes_removed(
    admin_view_table: str, anchor_writes: str
) -> None:
    w = writes({"Status": "PAID", "Note 'a' \"b\"": "x", "Rev": 1}, stored=False, rev=None)
    assert apply._write_anchors([w], {}) == set()
    stored = read_items([KEY])
    later = writes({"Status": "SHIPPED", "Rev": 2}, stored=True, rev=1)

    assert apply._write_anchors([later], stored) == set()

    assert read_items([KEY])[KEY] == {"PK": KEY[0], "SK": KEY[1], "Status": "SHIPPED", "Rev": 2}


def test_a_write_on_what_changed_meanwhile_loses_the_race(admin_view_table: str, anchor_writes: str) -> None:
    client, table = view_client()
    client.put_item(TableName=table, Item=item_codec.encode({"PK": KEY[0], "SK": KEY[1], "Rev": 5}))
    fresh = writes({"Rev": 1}, stored=False, rev=None)
    stale = writes({"Rev": 4}, stored=True, rev=3)
    unversioned = writes({"Rev": 1}, stored=True, rev=None)
    for lost in (fresh, stale, unversioned):
        assert apply._write_anchors([lost], {}) == {KEY}
    assert read_items([KEY])[KEY] == {"PK": KEY[0], "SK": KEY[1], "Rev": 5}


@pytest.mark.parametrize("stored", [False, True])
def test_an_anchor_too_long_for_a_statement_is_put_conditioned(admin_view_table: str, stored: bool) -> None:
    many = {f"Attribute{i:04}": i for i in range(700)}
    w = writes({**many, "Rev": 1}, stored=stored, rev=None)
    assert apply._anchor_statement("t", w, ()) is None
    assert apply._anchor_statement("t", writes({"Rev": 1}, stored=stored, rev=None), ()) is not None
