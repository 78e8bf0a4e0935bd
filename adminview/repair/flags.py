"""What the walk's two passes (``adminview.repair.walk``) work on (``Scope``: the view, each source's table, the diff
both note into, and how they read) and what they find: source partitions to look at again, and sums that are not
what the orders counted."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from adminview.core import schema
from adminview.core.sources import Source
from adminview.repair.partition import Item
from adminview.repair.table_walk import Table
from adminview.repair.view_diff import Diff


@dataclass(frozen=True)
class Unanchored:
    """A source partition as the source pass scanned it, when a consistent read made after the Scan found none of
    its anchors or counted items: the view items it implies that were stored then, beside its items."""

    items: tuple[Item, ...]
    stored: dict[schema.Key, Item]


@dataclass(frozen=True)
class Flag:
    """A source partition to look at again, and stored view items that no source item implies (found by the
    view pass: the repair deletes them). ``seen``: the partition as scanned, when it had no anchor stored."""

    source: Source
    pk: str
    extras: frozenset[schema.Key] = frozenset()
    seen: Unanchored | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class CounterDifference:
    key: schema.Key
    expected: dict[str, Decimal]  # what the orders counted
    stored: dict[str, Decimal]
    changed_at: float | None  # the sum's ``At`` as read (a correction is conditioned on it)


@dataclass
class Scope:
    view: Table
    tables: dict[str, Table]  # each source's table, by source name
    diff: Diff
    shards: int
    segments: int
    page_size: int

    def table(self, source: Source) -> Table:
        return self.tables[source.name]
