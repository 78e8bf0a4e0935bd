"""The source tables that feed the admin view, each a module that says what its items imply (a *source*,
``Source``); the stream handler dispatches every record by the table it came from (its ``eventSourceARN``). Adding
a third service means one more module here and one line in ``SOURCES``; nothing else changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from adminview.core import anchor, schema
from adminview.core.sources import returns, shop
from adminview.core.sources.shared import OrderPartitions
from adminview.core.values import Item


class State(Protocol):
    """One anchor's facts and bookkeeping, read once, folded into, and turned into what they imply."""

    key: schema.Key
    book: anchor.Bookkeeping
    stub_kind: str

    def apply(self, sk: str, image: Item | None) -> None:
        """A source item of the group changed: its new image (None: removed)."""

    def implied(self, list_shards: int) -> anchor.Implied: ...

    def source_keys(self) -> list[str]:
        """The sort keys of the source items (in the anchor's partition of the source table) it holds facts of."""


class Source(Protocol):
    name: str

    def table_name(self) -> str:
        """The table it reads (its stream's records name it)."""

    def anchor_of(self, key: schema.Key, image: Item) -> schema.Key | None:
        """The anchor a source item's view items hang on (``adminview.core.schema``), or None for an item that
        implies nothing, or only ``free_items``."""

    def read_state(self, key: schema.Key, item: Item | None) -> State:
        """The anchor item as read, parsed once into the state records fold into."""

    def free_items(self, key: schema.Key, image: Item, list_shards: int) -> list[Item]:
        """View items that follow from one immutable source item alone (staff activity)."""

    def owns(self, key: schema.Key) -> bool:
        """Whether an anchor key is one of its own (rebuild and verify)."""

    def entry_anchor(self, item: Item) -> schema.Key | None:
        """The anchor one of its entries (as stored) follows from; None for an item that is not its entry."""

    def free_item_source(self, item: Item) -> schema.Key | None:
        """The source item one of its free items (as stored) follows from; None for an item that is not one."""

    def order_partitions(self, order_id: str) -> OrderPartitions:
        """Where one order's items are in its table (the consistency page)."""

    def counts(self, anchor: schema.Key) -> bool:
        """Whether an anchor of this kind adds to the numbers (and so has a counted item beside it)."""

    def anchors_in(self, pk: str) -> list[schema.Key]:
        """The anchors the items of one of its partitions can hang on (read before the partition itself)."""


SOURCES: Sequence[Source] = (shop.SOURCE, returns.SOURCE)


class UnknownSource(ValueError):
    """A record from a table no source reads: reported and kept as a dead letter, never applied."""


def sources() -> Sequence[Source]:
    return SOURCES


def table_of(arn: object) -> str | None:
    """The table a stream ARN belongs to: ``arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>``."""
    if not isinstance(arn, str):
        return None
    _, marker, rest = arn.partition(":table/")
    name = rest.split("/", 1)[0] if marker else ""
    return name or None


def for_record(record: Any) -> Source:
    """The source a stream record came from, by its ``eventSourceARN``."""
    arn = record.get("eventSourceARN") if isinstance(record, dict) else None
    table = table_of(arn)
    for source in sources():
        if table is not None and table == source.table_name():
            return source
    raise UnknownSource(f"record from {table or 'an unnamed table'!s}: no source of the admin view reads it")


def source_name(stream_arn: object) -> str | None:
    """The name of the source whose table a stream ARN (a record's ``eventSourceARN``) belongs to."""
    table = table_of(stream_arn)
    return next((s.name for s in sources() if table is not None and s.table_name() == table), None)


def for_anchor(key: schema.Key) -> Source | None:
    return next((source for source in sources() if source.owns(key)), None)


def entry_anchor(item: Item) -> schema.Key | None:
    """The anchor a stored entry follows from, whichever source's it is."""
    return next((found for source in sources() if (found := source.entry_anchor(item)) is not None), None)


def free_item_source(item: Item) -> tuple[Source, schema.Key] | None:
    """The source, and its source item, a stored free item follows from, whichever source's it is."""
    return next(((source, found) for source in sources() if (found := source.free_item_source(item)) is not None), None)
