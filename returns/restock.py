"""Receiving a return puts its units back in stock, in the shop table, by actions added to the receive's own
transaction, so the return's status and the stock change together or not at all (docs/returns.md, "Across two tables").

A row is changed as the shop changes stock (``shop.order_parts.take_stock``: conditioned on the level read). A
missing row is created as ``shop.catalog.new_inventory`` makes one (so it carries its GSI2 keys), on the condition
that there is none yet and that the product exists. The warehouse must exist too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dynamo.transactions import Transaction
from returns.errors import UnknownWarehouse
from shop import keys
from shop.catalog import new_inventory
from shop.errors import InvalidInput
from shop.models import Inventory, Product, ShopItem, Warehouse
from shop.order_parts import take_stock
from shop.order_reads import raw_by_key


@dataclass(frozen=True)
class Shelf:
    """A warehouse's stock rows of some products as read, by product id (None: no row yet)."""

    warehouse_id: str
    rows: dict[str, Inventory | None]


def read_shelf(warehouse_id: str, product_ids: list[str]) -> Shelf:
    """The warehouse, each product's stock row there and each product: one BatchGetItem. UnknownWarehouse when
    the warehouse does not exist; InvalidInput for a product with no row that is not in the catalogue."""
    wid = keys.bare(warehouse_id, keys.WAREHOUSE)
    warehouse = keys.warehouse(wid)
    wanted = [(warehouse, warehouse)]
    wanted += [(keys.product(p), warehouse) for p in product_ids]
    wanted += [(keys.product(p), keys.product(p)) for p in product_ids]
    found = [_decoded(raw, product_ids, i) for i, raw in enumerate(raw_by_key(wanted))]
    if not isinstance(found[0], Warehouse):
        raise UnknownWarehouse(wid)
    read, products = found[1 : 1 + len(product_ids)], found[1 + len(product_ids) :]
    rows: dict[str, Inventory | None] = {}
    for pid, row, product in zip(product_ids, read, products, strict=True):
        rows[pid] = row if isinstance(row, Inventory) else None
        if rows[pid] is None and not isinstance(product, Product):
            raise InvalidInput(f"product {pid} is not in the catalogue, so no stock of it can be kept")
    return Shelf(wid, rows)


def _decoded(raw: dict[str, Any] | None, product_ids: list[str], position: int) -> ShopItem | None:
    """An item read as the shop's model; one whose stored attributes the model cannot read (a stock row's
    ``Quantity`` that is not a whole number) is refused naming its product (InvalidInput, a 400), not a 500."""
    if raw is None:
        return None
    try:
        return ShopItem.from_raw_data(raw)
    except ValueError as exc:
        what = f"product {product_ids[(position - 1) % len(product_ids)]}" if position else "the warehouse"
        raise InvalidInput(f"the stored stock of {what} cannot be read: {exc}") from exc


def add_restock(tx: Transaction, shelf: Shelf, units: Mapping[str, int]) -> None:
    """Add ``units`` (product id -> how many) to the shelf's rows in ``tx``, each conditioned as the module says."""
    warehouse = keys.warehouse(shelf.warehouse_id)
    tx.check(f"warehouse:{shelf.warehouse_id}", ShopItem, warehouse, warehouse, ShopItem.entity_type == Warehouse)
    for pid, quantity in units.items():
        row = shelf.rows[pid]
        if row is not None:
            take_stock(tx, pid, row, -quantity)
            continue
        product = keys.product(pid)
        tx.check(f"product:{pid}", ShopItem, product, product, ShopItem.entity_type == Product)
        new = new_inventory(product_id=pid, warehouse_id=shelf.warehouse_id, quantity=quantity)
        tx.put(f"stock:{pid}", new, ShopItem.pk.does_not_exist())
