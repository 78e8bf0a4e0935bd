"""Where a source's items for one order are in its table, as the source declares it: the partitions keyed by the
order, and an index Query that names more (read by ``adminview.repair.order_partitions``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


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
