"""Conditional writes of whole items, 25 a call (PartiQL's BatchExecuteStatement), on DynamoDB Local."""

from __future__ import annotations

import pytest

from adminview.models import ViewItem
from dynamo import ddb_json
from dynamo.client import client_of
from dynamo.conditional_writes import ConditionalPut, put_conditionally

pytestmark = pytest.mark.ddb_local


def _item(n: int, rev: int, **extra: str) -> dict[str, dict[str, str]]:
    item = {**ddb_json.key(f"o#{n}", "#order"), "Rev": ddb_json.n(rev), **{k: ddb_json.s(v) for k, v in extra.items()}}
    return item


def test_new_items_updates_at_a_revision_and_lost_races(admin_view_table: str) -> None:
    client, table = client_of(ViewItem), admin_view_table
    created = [ConditionalPut(_item(n, 1, Status="PENDING", Old="x"), "Rev") for n in range(30)]
    assert put_conditionally(client, table, created) == []
    assert put_conditionally(client, table, created[:2]) == [0, 1]  # already there: an INSERT does not overwrite

    stored = client.get_item(TableName=table, Key=ddb_json.key("o#3", "#order"))["Item"]
    moved = ConditionalPut(_item(3, 2, Status="SHIPPED"), "Rev", revision=1, stored_names=frozenset(stored))
    stale = ConditionalPut(_item(4, 2, Status="SHIPPED"), "Rev", revision=7, stored_names=frozenset(stored))
    assert put_conditionally(client, table, [moved, stale]) == [1]
    after = client.get_item(TableName=table, Key=ddb_json.key("o#3", "#order"), ConsistentRead=True)["Item"]
    assert after == _item(3, 2, Status="SHIPPED")  # "Old" removed: the new item replaces the stored one
    untouched = client.get_item(TableName=table, Key=ddb_json.key("o#4", "#order"), ConsistentRead=True)["Item"]
    assert untouched["Status"] == ddb_json.s("PENDING")

    client.put_item(TableName=table, Item={**ddb_json.key("o#99", "#order"), "Status": ddb_json.s("old")})
    no_revision = ConditionalPut(
        _item(99, 1, Status="new"), "Rev", missing_revision=True, stored_names=frozenset({"PK", "SK", "Status"})
    )
    assert put_conditionally(client, table, [no_revision]) == []
    assert put_conditionally(client, table, [no_revision]) == [0]  # it has one now
