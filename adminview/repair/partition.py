"""What one partition of a source table implies for the view, and how the view's items are told apart: the pure
part of rebuild, verify and the consistency page. Every view item follows from one source partition, so a
difference is pinned to one and repairing it repairs it (``docs/repair.md``). Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from adminview.core import anchor, numbers, schema, values
from adminview.core.anchor import Implied
from adminview.core.sources import Source, entry_anchor, for_anchor
from adminview.core.values import Item as Item


@dataclass
class PartitionView:
    """What one source partition implies: its anchors (with what each adds to the numbers) and its free items."""

    source: Source
    pk: str
    anchors: dict[schema.Key, Implied] = field(default_factory=dict)
    free: dict[schema.Key, Item] = field(default_factory=dict)

    def items(self) -> dict[schema.Key, Item]:
        """Every view item implied (anchors, entries, free items), bookkeeping left out."""
        found: dict[schema.Key, Item] = {}
        for implied in self.anchors.values():
            found |= implied.items()
        return found | self.free

    def counted(self) -> dict[schema.Key, numbers.Sums]:
        """The counted item of each anchor that adds to the numbers, and the sums it must hold."""
        return {schema.counted(key): implied.sums for key, implied in self.anchors.items() if implied.sums is not None}


def implied_by(source: Source, pk: str, items: Iterable[Item], list_shards: int) -> PartitionView:
    """What a source partition's items (as read from its table) imply."""
    view = PartitionView(source, pk)
    states: dict[schema.Key, Any] = {}
    for image in items:
        key = values.maybe_key(image)
        if key is None:
            continue
        found = source.anchor_of(key, image)
        if found is None:
            for item in source.free_items(key, image, list_shards):
                view.free[values.item_key(item)] = item
            continue
        if found not in states:
            states[found] = source.read_state(found, None)
        states[found].apply(key[1], image)
    view.anchors = {key: state.implied(list_shards) for key, state in states.items()}
    return view


def anchor_of_item(item: Item) -> schema.Key | None:
    """The anchor a stored view item follows from (itself, for an anchor or a stub); None for an activity entry,
    a sum, or an item the view does not know."""
    key = values.item_key(item)
    if for_anchor(key) is not None:
        return key
    if kind_of(item) == schema.COUNTED:
        return schema.counted_anchor(key)
    return entry_anchor(item)


def source_partition(anchor_key: schema.Key) -> tuple[Source, str] | None:
    """The source, and the partition key in its table, an anchor follows from."""
    source = for_anchor(anchor_key)
    return (source, anchor_key[0]) if source is not None else None


def is_bookkeeping_only(item: Item) -> bool:
    """A stub: an anchor kept only for its sequence numbers (compared with nothing)."""
    return anchor.GONE in item


def kind_of(item: Item | None) -> str | None:
    return values.string(item, schema.KIND)


def compared(stored: dict[schema.Key, Item]) -> dict[schema.Key, Item]:
    """The stored view items a comparison takes, bookkeeping left out: no stub, no counted item."""
    return {
        key: anchor.without_bookkeeping(item)
        for key, item in stored.items()
        if not is_bookkeeping_only(item) and kind_of(item) != schema.COUNTED
    }
