"""What every source shares: the state an anchor is read into; a source's anchors declared as rows (the prefix of
the partition key each hangs on, its sort key, its state), from which the source finds, names and reads them; and
where its items for one order are in its table (read by ``adminview.repair.consistency.read_order``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from adminview.core import schema, values
from adminview.core.anchor import Bookkeeping
from adminview.core.values import Item
from shop import keys


@dataclass
class Anchored:
    """An anchor's key, the id its partition key names (after ``PREFIX``) and its bookkeeping; ``load`` reads the
    facts a stored anchor holds (not for a stub)."""

    key: schema.Key
    id: str
    book: Bookkeeping = field(default_factory=Bookkeeping)
    PREFIX: ClassVar[str]

    @classmethod
    def read(cls, key: schema.Key, item: Item | None) -> Self:
        state = cls(key, keys.without_prefix(key[0], cls.PREFIX) or "", Bookkeeping.read(item))
        if item is not None and not state.book.gone:
            state.load(item)
        return state

    def load(self, item: Item) -> None:
        raise NotImplementedError


@dataclass
class Copied(Anchored):
    """An anchor that copies one source item of its own partition (``NAMES`` of it): a profile, a return."""

    facts: Item | None = None  # None: no source item
    NAMES: ClassVar[tuple[str, ...]]

    def load(self, item: Item) -> None:
        self.facts = {name: item[name] for name in self.NAMES if name in item}

    def apply(self, sk: str, image: Item | None) -> None:
        self.facts = {name: image[name] for name in self.NAMES if name in image} if image is not None else None

    def source_keys(self) -> list[str]:
        return [self.key[0]] if self.facts is not None else []


@dataclass(frozen=True)
class AnchorKind:
    """One kind of anchor a source keeps: on partition keys that start with ``prefix``, at sort key ``sk``, for the
    source items of ``entities`` in such a partition: its own item (``items`` None), or those under ``items``."""

    prefix: str
    sk: str
    state: type[Anchored]
    entities: tuple[str, ...]
    items: str | None = None


@dataclass(frozen=True)
class IndexLookup:
    """A Query of an index of a source's table, keys only, that names partitions: the items whose ``attribute``
    (the index's partition key) is ``value``, their partition keys kept where ``names_partition`` says so."""

    index: str
    attribute: str
    value: str
    names_partition: Callable[[str], bool]


@dataclass(frozen=True)
class OrderPartitions:
    """Where one order's items are in a source's table: partitions keyed by the order itself, and an index that
    names more (None: no other partition holds any)."""

    pks: tuple[str, ...]
    lookup: IndexLookup | None = None


class AnchoredSource:
    """The parts of a ``Source`` that follow from its ``ANCHORS``, and those of a source without free items."""

    ANCHORS: ClassVar[tuple[AnchorKind, ...]]

    def anchor_of(self, key: schema.Key, image: Item) -> schema.Key | None:
        pk, sk = key
        entity = values.string(image, keys.ENTITY_TYPE)
        for a in self.ANCHORS:
            held = sk == pk if a.items is None else keys.without_prefix(sk, a.items) is not None
            if entity in a.entities and held and keys.without_prefix(pk, a.prefix):
                return pk, a.sk
        return None

    def read_state(self, key: schema.Key, item: Item | None) -> Any:
        return {a.sk: a.state for a in self.ANCHORS}[key[1]].read(key, item)

    def owns(self, key: schema.Key) -> bool:
        return any(key[1] == a.sk and key[0].startswith(a.prefix) for a in self.ANCHORS)

    def anchors_in(self, pk: str) -> list[schema.Key]:
        return [(pk, a.sk) for a in self.ANCHORS if keys.without_prefix(pk, a.prefix)][:1]

    def free_items(self, key: schema.Key, image: Item, list_shards: int) -> list[Item]:
        return []

    def free_item_source(self, item: Item) -> schema.Key | None:
        return None
