"""Helpers for tests that need the admin view: drain the shop stream into it, read it back."""

from __future__ import annotations

from typing import Any

import pytest

from adminview import tables
from adminview.core import schema
from adminview.core.sources import shop
from adminview.sync.poller import Stats, sync_once
from dynamo import ddb_json
from dynamo.batch import batch_get
from dynamo.paging import raw_items


def sync_now(**kwargs: Any) -> Stats:
    """Drain the shop table's stream into the admin view once, via the same handler the poller and Lambda use
    (checkpoints kept, so calling it again applies only what is new)."""
    return sync_once(**kwargs)


def break_projection_of(monkeypatch: pytest.MonkeyPatch, source_pk: str) -> None:
    """Make the shop source fail for every record of ``source_pk`` (a simulated bug), as a poison record would."""
    real = shop.SOURCE.anchor_of

    def broken(key: tuple[str, str], image: Any) -> Any:
        if key[0] == source_pk:
            raise ValueError("cannot project this (simulated bug)")
        return real(key, image)

    monkeypatch.setattr(shop.SOURCE, "anchor_of", broken)


def view_item(pk: str, sk: str) -> ddb_json.Item:
    """One view item as stored (DynamoDB JSON, strongly consistent); ``LookupError`` when there is none."""
    client, table = tables.view_client()
    (found,) = batch_get(client, table, [ddb_json.key(pk, sk)], key_names=(schema.PK, schema.SK), consistent=True)
    if found is None:
        raise LookupError(f"no view item {pk} {sk}")
    return found


def view_count(pk: str, *, sk: str | None = None, kind: str = schema.ORDER) -> int:
    """How many items of one kind a view partition (or one sort key of it) holds, strongly consistent."""
    client, table = tables.view_client()
    names, values = {"#pk": schema.PK, "#kind": schema.KIND}, {":pk": ddb_json.s(pk), ":kind": ddb_json.s(kind)}
    condition = "#pk = :pk"
    if sk is not None:
        condition += " AND #sk = :sk"
        names["#sk"], values[":sk"] = schema.SK, ddb_json.s(sk)
    found = raw_items(
        client,
        "query",
        TableName=table,
        KeyConditionExpression=condition,
        FilterExpression="#kind = :kind",
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=values,
        ConsistentRead=True,
    )
    return sum(1 for _ in found)


def put_view_item(pk: str, sk: str, kind: str, **strings: str) -> None:
    """A view item written by hand (an item no source implies, for the rebuild to find)."""
    client, table = tables.view_client()
    item = {**ddb_json.key(pk, sk), schema.KIND: ddb_json.s(kind), **{n: ddb_json.s(v) for n, v in strings.items()}}
    client.put_item(TableName=table, Item=item)


def delete_view_item(pk: str, sk: str) -> None:
    client, table = tables.view_client()
    client.delete_item(TableName=table, Key=ddb_json.key(pk, sk))
