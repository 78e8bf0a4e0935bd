"""Tables made once per engine and emptied between tests.

Making a table with its indexes costs DynamoDB Local far more than emptying one, so each table spec gets one table
per engine, and a test that is done with it hands it back empty: its items deleted and, on a table with a stream,
the stream turned off and on again, so the next test reads a new stream from its start that holds only its own
records (the sync finds streams by ``LatestStreamArn``). A table the test changed in shape (an index added or
dropped, the stream turned off) or filled with more items than are worth deleting one by one is dropped instead,
and the next test gets a new one.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

from dynamo.client import client_of
from dynamo.local import ENDPOINT_VARIABLES
from dynamo.tables import TableSpec, delete_table, ensure_table, wait_active

# Past this many items, deleting the table and making a new one is cheaper than deleting the items.
MAX_ITEMS_TO_EMPTY = 300
_BATCH = 25


class TablePool:
    """One table per spec and engine (a module may start an engine of its own and point the clients at it),
    reused by every test of that engine's life."""

    def __init__(self) -> None:
        self._names: dict[tuple[str, str], str] = {}

    def forget(self) -> None:
        """The engine restarted (in memory): every table is gone."""
        self._names.clear()

    def take(self, spec: TableSpec, prefix: str) -> str:
        """Point the spec's model at this spec's empty table, making it if there is none; returns the name."""
        name = self._names.get(_at(prefix))
        if name is None:
            name = f"{prefix}-{uuid.uuid4().hex[:8]}"
            spec.model.Meta.table_name = name
            ensure_table(spec)
            self._names[_at(prefix)] = name
        spec.model.Meta.table_name = name
        return name

    def give_back(self, spec: TableSpec, prefix: str) -> None:
        """Empty the table for the next test, or drop it when the test changed its shape or filled it."""
        name = self._names.get(_at(prefix))
        if name is None:
            return
        spec.model.Meta.table_name = name
        if not (_same_shape(spec) and _emptied(spec)):
            del self._names[_at(prefix)]
            delete_table(spec.model)


def _at(prefix: str) -> tuple[str, str]:
    """The pool's key: the engine the clients are pointed at now, and the table's prefix."""
    return os.environ.get(ENDPOINT_VARIABLES[0], ""), prefix


def _same_shape(spec: TableSpec) -> bool:
    client = client_of(spec.model)
    try:
        table = client.describe_table(TableName=spec.name)["Table"]
    except client.exceptions.ResourceNotFoundException:
        return False
    wanted = {i["index_name"] for i in spec.model._get_schema().get("global_secondary_indexes", [])}
    live = {i["IndexName"] for i in table.get("GlobalSecondaryIndexes", [])}
    stream: dict[str, Any] = dict(table.get("StreamSpecification") or {})
    has_stream = bool(stream.get("StreamEnabled")) and stream.get("StreamViewType") == spec.stream_view_type
    return wanted == live and has_stream == bool(spec.stream_view_type) and table["TableStatus"] == "ACTIVE"


def _emptied(spec: TableSpec) -> bool:
    """Delete every item (with the stream off, so the deletes leave no records); False when there were too many."""
    client = client_of(spec.model)
    key_names = [k["AttributeName"] for k in spec.model._get_schema()["key_schema"]]
    keys = _keys(client, spec.name, key_names)
    if keys is None:
        return False
    if spec.stream_view_type:
        client.update_table(TableName=spec.name, StreamSpecification={"StreamEnabled": False})
        wait_active(client, spec.name)
    for start in range(0, len(keys), _BATCH):
        requests: Any = [{"DeleteRequest": {"Key": key}} for key in keys[start : start + _BATCH]]
        while requests:
            requests = (
                client.batch_write_item(RequestItems={spec.name: requests}).get("UnprocessedItems", {}).get(spec.name)
            )
    if spec.stream_view_type:
        client.update_table(
            TableName=spec.name,
            StreamSpecification={"StreamEnabled": True, "StreamViewType": spec.stream_view_type},
        )
        wait_active(client, spec.name)
    return True


def _keys(client: Any, name: str, key_names: list[str]) -> list[dict[str, Any]] | None:
    """Every item's key, or None past ``MAX_ITEMS_TO_EMPTY``."""
    keys: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {
        "TableName": name,
        "ProjectionExpression": ", ".join(f"#k{i}" for i in range(len(key_names))),
        "ExpressionAttributeNames": {f"#k{i}": n for i, n in enumerate(key_names)},
    }
    while True:
        page = client.scan(**kwargs)
        keys += page.get("Items", [])
        if len(keys) > MAX_ITEMS_TO_EMPTY:
            return None
        if "LastEvaluatedKey" not in page:
            return keys
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
