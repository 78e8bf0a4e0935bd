"""The admin view's tables, the layer under ``sync``, ``reads`` and ``repair`` (on ``core``, never on a room):
what ``create_tables`` creates (the view's indexes as ``adminview.core.schema`` declares them, the sync's own
table), and the plain batch reads and writes of view items that the sync and the repair tools share.

The models only define the tables: the sync and every page read and write the view through the low-level client
(a model per item would cost the sync more than the rest of its work); ``read_items`` and ``write_entries``
decode and encode the items, so the core builds and reads plain values.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.indexes import GlobalSecondaryIndex, IncludeProjection

from adminview.core import schema
from adminview.core.anchor import EXPIRES_AT, Item
from dynamo import conf, ddb_json, item_codec
from dynamo.batch import batch_get, batch_write, delete_request, put_request
from dynamo.client import client_of
from dynamo.models import BaseMeta, InstrumentedModel
from dynamo.tables import TableSpec

WRITE_PARALLEL = 16  # BatchWriteItem calls in flight per batch (each waits on the network)


def _index(spec: schema.Index) -> GlobalSecondaryIndex[Any]:
    """The PynamoDB index ``create_tables`` makes of one of the schema's indexes."""

    class Declared(GlobalSecondaryIndex[Any]):
        class Meta:
            index_name = spec.name
            projection = IncludeProjection(list(spec.projected))

        hash_key = UnicodeAttribute(hash_key=True, attr_name=spec.hash_key)
        range_key = UnicodeAttribute(range_key=True, attr_name=spec.range_key)

    return Declared()


class ViewItem(InstrumentedModel):
    class Meta(BaseMeta):
        table_name = conf.admin_view_table_name()

    pk = UnicodeAttribute(hash_key=True, attr_name=schema.PK)
    sk = UnicodeAttribute(range_key=True, attr_name=schema.SK)
    orders_by_status = _index(schema.ORDERS_BY_STATUS)
    catalogue = _index(schema.CATALOGUE)


ADMIN_VIEW_TABLE = TableSpec(model=ViewItem, ttl_attribute=EXPIRES_AT)


class SyncItem(InstrumentedModel):
    """The sync's bookkeeping (its own small table): per-shard checkpoints, dead letters, heartbeats, the last verify.

    - PK ``checkpoint#<stream arn>`` SK ``<shard id>``: Seq (last record applied or dead-lettered), Done.
    - PK ``deadletter`` SK ``<seq>#<event id>``: Record (JSON), Error, Attempts, At.
    - PK ``heartbeat`` SK ``<writer>``: how far one writer has got (``adminview.sync.sync_status``).
    - PK ``verify`` SK ``last``: At, Done (1: the view matched), Error (the summary).
    """

    class Meta(BaseMeta):
        table_name = os.environ.get("ADMIN_VIEW_SYNC_TABLE_NAME") or "AdminViewSync"

    pk = UnicodeAttribute(hash_key=True, attr_name=schema.PK)
    sk = UnicodeAttribute(range_key=True, attr_name=schema.SK)
    seq = UnicodeAttribute(null=True, attr_name="Seq")
    done = NumberAttribute(null=True, attr_name="Done")
    record = UnicodeAttribute(null=True, attr_name="Record")
    error = UnicodeAttribute(null=True, attr_name="Error")
    attempts = NumberAttribute(null=True, attr_name="Attempts")
    at = UnicodeAttribute(null=True, attr_name="At")


SYNC_TABLE = TableSpec(model=SyncItem, ttl_attribute=EXPIRES_AT)


def view_client() -> tuple[Any, str]:
    return client_of(ViewItem), str(ViewItem.Meta.table_name)


def sync_client() -> tuple[Any, str]:
    return client_of(SyncItem), str(SyncItem.Meta.table_name)


def read_items(
    item_keys: Iterable[schema.Key],
    attributes: Sequence[str] | None = None,
    *,
    consistent: bool = True,
    table: tuple[Any, str] | None = None,
) -> dict[schema.Key, Item | None]:
    """Items by key, decoded (BatchGetItem, consistent unless told; None: no item), of the view unless ``table``."""
    client, name = table or view_client()
    unique = list(dict.fromkeys(item_keys))
    wanted, names = [ddb_json.key(*k) for k in unique], (schema.PK, schema.SK)
    found = batch_get(client, name, wanted, key_names=names, attributes=attributes, consistent=consistent)
    return {key: item_codec.decode_or_none(item) for key, item in zip(unique, found, strict=True)}


def write_entries(entries: dict[schema.Key, Item | None], table: tuple[Any, str] | None = None) -> None:
    """Entries (plain values) put whole (None: deleted), BatchWriteItem 25 a call, calls in parallel, into the view
    unless ``table`` is given; the sync's write of what a batch changed, and the rebuild's deletion of orphans."""
    if not entries:
        return
    client, name = table or view_client()
    requests = [
        put_request(item_codec.encode(i)) if i is not None else delete_request(ddb_json.key(*k))
        for k, i in entries.items()
    ]
    batch_write(client, name, requests, key_names=(schema.PK, schema.SK), parallel=WRITE_PARALLEL)
