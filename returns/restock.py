"""Receiving a return puts its units back in stock: each line's ``Quantity`` added to that product's stock in the
warehouse, in the shop table, by actions added to the receive's own transaction (so the return's status and the
stock change together or not at all).

Stock is a decimal string (AWS's encoding), which DynamoDB cannot ``ADD`` to: a row is set to the quantity read
plus the line's, on the condition that it still holds the text read, as ``shop.orders`` and ``shop.editing`` change
stock (a concurrent change fails the condition and the receive runs again from its reads). A product the warehouse
holds no row of gets one, made as ``shop.editing`` makes one (its GSI2 keys included), on the condition that there
is none yet and that the product exists. The warehouse must exist too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from pynamodb.expressions.operand import Path, Value
from pynamodb.expressions.update import Action

from dynamo import ddb_json, item_codec
from dynamo.batch import batch_get
from dynamo.client import client_of
from dynamo.transactions import Transaction
from returns.errors import UnknownWarehouse
from shop import keys
from shop.errors import InvalidInput
from shop.models import Inventory, Product, ShopItem, Warehouse

QUANTITY = "Quantity"


@dataclass(frozen=True)
class Shelf:
    """A warehouse's stock of some products as read: product id -> its row's ``Quantity`` as stored (None: no row
    yet)."""

    warehouse_id: str
    stock: dict[str, ddb_json.Value | None]


def _is(item: dict[str, ddb_json.Value] | None, model: type[ShopItem]) -> bool:
    return item is not None and isinstance(ShopItem.from_raw_data(item), model)


def read_shelf(warehouse_id: str, product_ids: list[str]) -> Shelf:
    """The warehouse, each product's stock row there and each product: one BatchGetItem. UnknownWarehouse when
    the warehouse does not exist; InvalidInput for a product with no row that is not in the catalogue."""
    wid = keys.bare(warehouse_id, keys.WAREHOUSE)
    warehouse = keys.warehouse(wid)
    wanted = [ddb_json.key(warehouse, warehouse)]
    wanted += [ddb_json.key(keys.product(p), warehouse) for p in product_ids]
    wanted += [ddb_json.key(keys.product(p), keys.product(p)) for p in product_ids]
    found = batch_get(client_of(ShopItem), str(ShopItem.Meta.table_name), wanted, key_names=("PK", "SK"))
    if not _is(found[0], Warehouse):
        raise UnknownWarehouse(wid)
    rows, products = found[1 : 1 + len(product_ids)], found[1 + len(product_ids) :]
    stock: dict[str, ddb_json.Value | None] = {}
    for pid, row, product in zip(product_ids, rows, products, strict=True):
        if row is None and not _is(product, Product):
            raise InvalidInput(f"product {pid} is not in the catalogue, so no stock of it can be kept")
        stock[pid] = row.get(QUANTITY, {"NULL": True}) if row is not None else None
    return Shelf(wid, stock)


def _level(stored: ddb_json.Value, product_id: str) -> int:
    value = item_codec.decode_value(stored)
    text = str(value) if isinstance(value, str | Decimal) else ""
    try:
        number = Decimal(text)
    except InvalidOperation as exc:
        raise InvalidInput(f"the stored stock of product {product_id} ({text!r}) is not a number") from exc
    if not number.is_finite() or number != number.to_integral_value():
        raise InvalidInput(f"the stored stock of product {product_id} ({text!r}) is not a whole number")
    return int(number)


def add_restock(tx: Transaction, shelf: Shelf, units: Mapping[str, int]) -> None:
    """Add ``units`` (product id -> how many) to the shelf's rows in ``tx``, each conditioned as the module says."""
    warehouse = keys.warehouse(shelf.warehouse_id)
    tx.check(f"warehouse:{shelf.warehouse_id}", ShopItem, warehouse, warehouse, ShopItem.entity_type == Warehouse)
    for pid, quantity in units.items():
        built = keys.inventory_keys(pid, shelf.warehouse_id)
        product, row = built["pk"], ShopItem(pk=built["pk"], sk=built["sk"])
        before = shelf.stock[pid]
        if before is not None:
            after = str(_level(before, pid) + quantity)
            tx.update(f"stock:{pid}", row, [Path([QUANTITY]).set(_s(after))], Path([QUANTITY]) == Value(before))
            continue
        tx.check(f"product:{pid}", ShopItem, product, product, ShopItem.entity_type == Product)
        sets: list[Action] = [
            ShopItem.entity_type.set(Inventory),
            ShopItem.gsi2_pk.set(built["gsi2_pk"]),
            ShopItem.gsi2_sk.set(built["gsi2_sk"]),
            Path([QUANTITY]).set(_s(str(quantity))),
        ]
        tx.update(f"stock:{pid}", row, sets, Path(["PK"]).does_not_exist())


def _s(text: str) -> Value:
    return Value(ddb_json.s(text))
