"""Test helpers: collect the shop stream's raw records, and a few domain-level actions."""

from __future__ import annotations

from typing import Any

from adminview.sync.poller import Poller, ShardState
from shop import orders
from shop.models import ShopItem


class Collector(Poller):
    """Reads the stream like the poller (checkpoints included) but hands the records back unapplied."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.collected: list[dict[str, Any]] = []

    def process(self, records: list[dict[str, Any]], **_: Any) -> None:
        self.collected += records

    def note_caught_up(self, shard: ShardState) -> None:
        """It applies nothing, so it says nothing about how fresh the view is."""


def new_records() -> list[dict[str, Any]]:
    """Stream records written since the last call (Lambda event shape)."""
    collector = Collector.for_sources()
    collector.run(follow=False)
    return collector.collected


def delete_order(order_id: str) -> None:
    """Remove an order's whole item collection (what an operator's cleanup would do)."""
    collection = orders.order_collection(order_id)
    items: list[ShopItem] = [
        collection.order,
        *collection.items,
        *collection.invoices,
        *collection.shipments,
        *collection.shipment_items,
    ]
    for item in items:
        item.delete()
