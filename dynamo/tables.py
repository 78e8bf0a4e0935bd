"""Create tables and add missing GSIs online, idempotently, and wait until everything is ACTIVE.

The shape comes from the PynamoDB models (their key attributes and ``Index`` declarations), so a GSI declared in
code is the only thing needed to roll one out (docs/migrations.md, "The steps" (3)).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pynamodb.attributes import Attribute
from pynamodb.indexes import Index
from pynamodb.models import Model

from dynamo.client import client_of
from dynamo.paging import indexes, key_attributes, key_pair

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodb.literals import StreamViewTypeType
    from mypy_boto3_dynamodb.type_defs import StreamSpecificationTypeDef

POLL_S = 0.5
DEFAULT_TIMEOUT_S = 3600.0


@dataclass(frozen=True)
class TableSpec:
    """What a table must look like: the model that defines it, its stream setting, and the attribute DynamoDB's
    TTL deletes items by (epoch seconds; None: no TTL)."""

    model: type[Model]
    stream_view_type: StreamViewTypeType | None = None
    ttl_attribute: str | None = None

    @property
    def name(self) -> str:
        return str(self.model.Meta.table_name)


def _schema(model: type[Model]) -> dict[str, Any]:
    """CreateTable's shape of a model: its keys and its indexes', read from the model's public declarations."""

    def key_schema(attributes: Iterable[Attribute[Any]]) -> list[dict[str, str]]:
        return [{"AttributeName": a.attr_name, "KeyType": "HASH" if a.is_hash_key else "RANGE"} for a in attributes]

    table_keys = key_attributes(model.get_attributes().values())
    index_keys = {name: key_attributes(i.Meta.attributes.values()) for name, i in sorted(indexes(model).items())}
    every_key = {a.attr_name: a.attr_type for a in [*table_keys, *(a for ks in index_keys.values() for a in ks)]}
    return {
        "AttributeDefinitions": [{"AttributeName": name, "AttributeType": kind} for name, kind in every_key.items()],
        "KeySchema": key_schema(table_keys),
        "GlobalSecondaryIndexes": [
            {"IndexName": name, "KeySchema": key_schema(ks), "Projection": _projection(indexes(model)[name])}
            for name, ks in index_keys.items()
        ],
    }


def _projection(index: Index[Any]) -> dict[str, Any]:
    projection = index.Meta.projection
    extra = {"NonKeyAttributes": projection.non_key_attributes} if projection.non_key_attributes else {}
    return {"ProjectionType": projection.projection_type, **extra}


def key_names(model: type[Model]) -> dict[str | None, tuple[str, str | None]]:
    """(partition, sort) key names of the table (None) and of each index, by index name."""
    return {name: key_pair(model, name) for name in [None, *indexes(model)]}


def _describe(client: DynamoDBClient, name: str) -> dict[str, Any] | None:
    try:
        return dict(client.describe_table(TableName=name)["Table"])
    except client.exceptions.ResourceNotFoundException:
        return None


def wait_active(
    client: DynamoDBClient,
    name: str,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Poll DescribeTable until the table and all its indexes are ACTIVE (index backfills included)."""
    deadline = time.monotonic() + timeout_s
    last_state = ""
    while True:
        table = _describe(client, name)
        if table is None:
            raise RuntimeError(f"table {name} disappeared while waiting for it")
        indexes_waiting = [
            f"{i['IndexName']} {i.get('IndexStatus')}{' (backfilling)' if i.get('Backfilling') else ''}"
            for i in table.get("GlobalSecondaryIndexes", [])
            if i.get("IndexStatus") != "ACTIVE" or i.get("Backfilling")
        ]
        if table.get("TableStatus") == "ACTIVE" and not indexes_waiting:
            return table
        state = ", ".join([f"table {table.get('TableStatus')}", *indexes_waiting])
        if progress and state != last_state:
            progress(f"{name}: waiting ({state})")
            last_state = state
        if time.monotonic() > deadline:
            raise TimeoutError(f"{name} not ACTIVE after {timeout_s:.0f}s ({state})")
        time.sleep(POLL_S)


def _projected(index: dict[str, Any]) -> tuple[str, frozenset[str]]:
    projection = index.get("Projection") or {}
    return str(projection.get("ProjectionType", "")), frozenset(projection.get("NonKeyAttributes") or ())


def projection_drift(live: dict[str, Any], wanted: dict[str, Any]) -> str | None:
    """What the model's index projects that the live one does not, in words (None when they agree).

    DynamoDB cannot change an index's projection in place, so this is reported, not fixed: reads through the
    index see the missing attributes as absent until the index is replaced by one of a new name."""
    (live_type, live_attrs), (wanted_type, wanted_attrs) = _projected(live), _projected(wanted)
    if live_type == wanted_type and live_attrs == wanted_attrs:
        return None
    if live_type == "ALL" or wanted_type == "KEYS_ONLY" or (wanted_type == "INCLUDE" and wanted_attrs <= live_attrs):
        return None  # the live index holds at least what the model reads
    missing = sorted(wanted_attrs - live_attrs) if live_type == "INCLUDE" else []
    what = f"lacks {', '.join(missing)}" if missing else f"projects {live_type}, the model wants {wanted_type}"
    return (
        f"index {live.get('IndexName')} {what}; DynamoDB cannot change a projection in place, so those attributes "
        "read as absent through it until it is replaced by an index of a new name"
    )


def ensure_table(
    spec: TableSpec, *, progress: Callable[[str], None] = lambda _: None, timeout_s: float = DEFAULT_TIMEOUT_S
) -> list[str]:
    """Make the table match ``spec``; returns what was changed (empty when it already did)."""
    client = client_of(spec.model)
    wanted = _schema(spec.model)
    changes: list[str] = []

    def then_wait(change: str = "", note: str = "") -> None:
        if change:
            changes.append(change)
            progress(change + note)
        wait_active(client, spec.name, timeout_s=timeout_s, progress=progress)

    stream: StreamSpecificationTypeDef | None = None
    if spec.stream_view_type:
        stream = {"StreamEnabled": True, "StreamViewType": spec.stream_view_type}
    table = _describe(client, spec.name)
    if table is None:
        params: dict[str, Any] = {k: v for k, v in wanted.items() if v}  # CreateTable refuses an empty index list
        if stream:
            params["StreamSpecification"] = stream
        client.create_table(TableName=spec.name, BillingMode="PAY_PER_REQUEST", **params)
        then_wait(f"created table {spec.name}")
        return changes + _ensure_ttl(client, spec, progress)

    then_wait()
    live_stream = table.get("StreamSpecification") or {}
    if stream and not live_stream.get("StreamEnabled"):
        client.update_table(TableName=spec.name, StreamSpecification=stream)
        then_wait(f"enabled stream ({spec.stream_view_type}) on {spec.name}")
    elif stream and live_stream.get("StreamViewType") != spec.stream_view_type:
        raise RuntimeError(
            f"{spec.name} has a {live_stream.get('StreamViewType')} stream but {spec.stream_view_type} is needed; "
            "changing a stream's view type means disabling it (losing unread records): do it by hand"
        )

    existing = {i["IndexName"]: i for i in table.get("GlobalSecondaryIndexes", [])}
    definitions = {d["AttributeName"]: d for d in wanted["AttributeDefinitions"]}
    for index in wanted["GlobalSecondaryIndexes"]:
        if index["IndexName"] in existing:
            drift = projection_drift(existing[index["IndexName"]], index)
            if drift:
                progress(f"warning: {spec.name} {drift}")
            continue
        # DynamoDB adds one GSI per UpdateTable call; the table keeps serving reads and writes meanwhile.
        client.update_table(
            TableName=spec.name,
            AttributeDefinitions=[definitions[key["AttributeName"]] for key in index["KeySchema"]],
            GlobalSecondaryIndexUpdates=[{"Create": index}],
        )
        then_wait(f"added index {index['IndexName']} to {spec.name}", " (DynamoDB backfills it online)")
    return changes + _ensure_ttl(client, spec, progress)


def _ensure_ttl(client: Any, spec: TableSpec, progress: Callable[[str], None]) -> list[str]:
    """Enable TTL on ``spec.ttl_attribute`` unless it already is (or is being) enabled on it."""
    if not spec.ttl_attribute:
        return []
    found = client.describe_time_to_live(TableName=spec.name).get("TimeToLiveDescription") or {}
    status, attribute = found.get("TimeToLiveStatus"), found.get("AttributeName")
    if status in ("ENABLED", "ENABLING"):
        if attribute != spec.ttl_attribute:
            raise RuntimeError(
                f"{spec.name} has TTL on {attribute} but {spec.ttl_attribute} is needed; "
                "disabling TTL takes up to an hour on AWS: change it by hand"
            )
        return []
    client.update_time_to_live(
        TableName=spec.name, TimeToLiveSpecification={"Enabled": True, "AttributeName": spec.ttl_attribute}
    )
    change = f"enabled TTL ({spec.ttl_attribute}) on {spec.name}"
    progress(change)
    return [change]


def stream_arn(model: type[Model]) -> str | None:
    table = _describe(client_of(model), str(model.Meta.table_name))
    return table.get("LatestStreamArn") if table else None


def delete_table(model: type[Model]) -> None:
    client = client_of(model)
    try:
        client.delete_table(TableName=str(model.Meta.table_name))
    except client.exceptions.ResourceNotFoundException:
        return
