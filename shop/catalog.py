"""Domain writes for the catalog: customers, products, warehouses and their stock. A create is a conditional
PutItem (it never overwrites); bulk loads build the same items and write them with BatchWriteItem.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from pynamodb.exceptions import PutError

from dynamo.batch import Progress, write_models
from shop import keys
from shop.attributes import to_decimal
from shop.errors import InvalidInput, ShopError
from shop.models import Address, Customer, Inventory, Product, ProductDetail, ShopItem, Warehouse


def new_customer(*, customer_id: str, name: str, email: str, address: Address | None = None) -> Customer:
    if not name.strip() or "@" not in email:
        raise InvalidInput("a customer needs a name and an email address")
    return Customer(**keys.customer_keys(customer_id), name=name.strip(), email=email.strip(), address=address)


def new_product(
    *, product_id: str, name: str, price: Decimal | str, description: str | None = None, category: str | None = None
) -> Product:
    amount = to_decimal(price, what="price")
    if amount < 0:
        raise InvalidInput("price must not be negative")
    return Product(
        **keys.product_keys(product_id),
        price=amount,
        detail=ProductDetail(name=name, description=description),
        category=category.strip() if category and category.strip() else None,
    )


def new_warehouse(*, warehouse_id: str, name: str | None = None, address: Address | None = None) -> Warehouse:
    return Warehouse(**keys.warehouse_keys(warehouse_id), name=name, address=address)


def new_inventory(*, product_id: str, warehouse_id: str, quantity: int) -> Inventory:
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 0:
        raise InvalidInput(f"stock must be a whole number >= 0, got {quantity!r}")
    return Inventory(**keys.inventory_keys(product_id, warehouse_id), quantity=quantity)


def create(item: ShopItem) -> ShopItem:
    """Create one catalog item; refuses to overwrite an existing one."""
    try:
        item.save(condition=ShopItem.pk.does_not_exist())
    except PutError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            raise ShopError(f"{item.pk} already exists") from exc
        raise
    return item


def load(items: Iterable[ShopItem], *, parallel: int = 4, on_chunk: Progress | None = None) -> int:
    """Bulk load (seeding, imports): BatchWriteItem 25 a call, chunks in parallel, unprocessed retried."""
    return write_models(ShopItem, items, parallel=parallel, on_chunk=on_chunk)
