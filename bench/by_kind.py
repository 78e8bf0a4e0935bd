"""What each kind of shop item costs the view: for a sample of the stream, the view items, index entries and write
units that applying each record causes, by the ``EntityType`` of the item it changed.

The sync writes for whole batches (one anchor write for all of an order's records in a batch, sums merged across
anchors), so a call's units cannot be traced back to one record. Instead the sample is folded again, one record at a
time, by the product's own pure core (``adminview.sync.apply.prepare`` and ``fold``, the source's ``read_state``,
``adminview.core.anchor.plan``, ``adminview.core.numbers``), from a view held in memory, and each record's
``Writes`` are weighed as the sync would send them (``adminview.sync.apply._apply_once``): its entries in a
BatchWriteItem, its counted item and sum updates in a TransactWriteItems when its sums changed, then its anchor's
conditional PutItem (or DeleteItem); a staff change's activity entries in a BatchWriteItem. Weights are DynamoDB's
billing rules (``bench.sync.written_items``). This is each record *applied alone*: an upper bound of what the
batched sync writes for the same records. No DynamoDB call is made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from adminview.core import numbers, schema, values
from adminview.core.anchor import Item
from adminview.sync.apply import Prepared, counting_transactions, fold, prepare
from bench.sync import Written, written_items
from dynamo import ddb_json, item_codec

DEFAULT_SAMPLE = 3000
NO_KIND = "(no EntityType)"
Record = dict[str, Any]


def kind_of(record: Mapping[str, Any]) -> str:
    """The ``EntityType`` of the item a record changed: its new image's, or its old image's for a REMOVE."""
    body = record.get("dynamodb")
    body = body if isinstance(body, dict) else {}
    image = body.get("OldImage") if record.get("eventName") == "REMOVE" else body.get("NewImage")
    return (ddb_json.string(image, "EntityType") if isinstance(image, dict) else None) or NO_KIND


@dataclass
class KindCost:
    """What the records of one kind caused, applied alone."""

    records: int = 0
    not_applied: int = 0  # records the sync refuses (it dead-letters them)
    view_items: int = 0
    index_entries: int = 0
    units: float = 0.0

    def add(self, written: Iterable[Written]) -> None:
        for w in written:
            self.view_items += 1
            self.index_entries += w.index_entries
            self.units += w.weight


class MemoryView:
    """The anchors and counted items the sync would have written, in memory: what its step 2 reads back, so each
    record folds from the state the records before it left. Entries and sums are never read back by a fold, so
    only their weights are kept."""

    def __init__(self, table: str, list_shards: int) -> None:
        self.table = table
        self.list_shards = list_shards
        self.index_keys = [list(index.key_names) for index in schema.INDEXES]
        self.stored: dict[schema.Key, Item] = {}

    def apply(self, record: Record) -> list[Written]:
        """The view writes one record causes, weighed; ``ValueError`` (and its kin) as the sync raises them."""
        prepared = prepare(record, self.list_shards)
        if prepared.anchor is None:
            return self._batch({values.item_key(item): item for item in prepared.free})
        return self._fold(prepared.anchor, prepared)

    def _fold(self, key: schema.Key, prepared: Prepared) -> list[Written]:
        source = prepared.source
        state = source.read_state(key, self.stored.get(key))
        counted = None
        if source.counts(key):
            counted = numbers.read_counted(schema.counted(key), self.stored.get(schema.counted(key)))
        writes = fold(state, [prepared], counted, self.list_shards).writes
        if writes is None:
            return []
        written = self._batch(writes.entries)
        if counted is not None and writes.sums is not None and writes.sums != counted.sums:
            for _positions, actions in counting_transactions(self.table, [(counted, writes.sums)]):
                self._keep([_decoded(action) for action in actions])
                written += written_items("TransactWriteItems", {"TransactItems": actions}, self.table, self.index_keys)
        action = writes.anchor_action(self.table)
        if action is not None:
            self._keep([action])
            action = item_codec.encode_action(action)
            operation, params = ("PutItem", action["Put"]) if "Put" in action else ("DeleteItem", action["Delete"])
            written += written_items(operation, params, self.table, self.index_keys)
        return written

    def _batch(self, entries: Mapping[schema.Key, Item | None]) -> list[Written]:
        requests = [
            {"PutRequest": {"Item": item_codec.encode(item)}}
            if item is not None
            else {"DeleteRequest": {"Key": ddb_json.key(*key)}}
            for key, item in entries.items()
        ]
        if not requests:
            return []
        return written_items("BatchWriteItem", {"RequestItems": {self.table: requests}}, self.table, self.index_keys)

    def _keep(self, actions: Iterable[Mapping[str, Any]]) -> None:
        """What the anchors' and counted items' puts and deletes (plain) leave stored, as the sync reads them back
        (an Update only moves a sum)."""
        for action in actions:
            if "Put" in action:
                item = action["Put"]["Item"]
                self.stored[values.item_key(item)] = item
            elif "Delete" in action:
                self.stored.pop(values.item_key(action["Delete"]["Key"]), None)


def _decoded(action: Mapping[str, Any]) -> dict[str, Any]:
    """An encoded action's item or key as the sync would read it back."""
    return {
        kind: {name: item_codec.decode(part) if name in ("Item", "Key") else part for name, part in body.items()}
        for kind, body in action.items()
    }


def by_kind(records: Iterable[Record], *, table: str, list_shards: int) -> dict[str, Any]:
    """Each kind's records, view items, index entries and write units, applied alone (most units first), and
    their totals."""
    view = MemoryView(table, list_shards)
    kinds: dict[str, KindCost] = {}
    for record in records:
        cost = kinds.setdefault(kind_of(record), KindCost())
        cost.records += 1
        try:
            cost.add(view.apply(record))
        except Exception:  # what the sync dead-letters is counted, not weighed
            cost.not_applied += 1
    total = KindCost()
    for cost in kinds.values():
        total.records += cost.records
        total.not_applied += cost.not_applied
        total.view_items += cost.view_items
        total.index_entries += cost.index_entries
        total.units += cost.units
    ranked = sorted(kinds.items(), key=lambda pair: (-pair[1].units, pair[0]))
    return {
        "kinds": {kind: _figures(cost) for kind, cost in ranked},
        "total": _figures(total),
    }


def _figures(cost: KindCost) -> dict[str, Any]:
    figures: dict[str, Any] = asdict(cost)
    figures["units"] = round(cost.units, 1)
    figures["units_per_record"] = round(cost.units / cost.records, 3) if cost.records else None
    return figures
