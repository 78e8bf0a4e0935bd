"""Small builders of catalog data for tests, going through the domain writes."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from pynamodb.models import Model

from shop import catalog
from shop.models import Address
from shop.plain import from_attribute_values


def to_plain(item: Model) -> dict[str, Any]:
    """An item as it would be written, in plain values: what tests compare plans by."""
    return from_attribute_values(item.serialize())


def customer(customer_id: str = "1001", name: str = "Ada Lovelace", email: str | None = None) -> None:
    catalog.create(
        catalog.new_customer(
            customer_id=customer_id,
            name=name,
            email=email or f"c{customer_id}@example.com",
            address=Address(street="Main Street", number="1", zip_code="41111", city="Goteborg", country="Sweden"),
        )
    )


def product(
    product_id: str = "2001", price: str = "10.50", name: str | None = None, category: str | None = None
) -> None:
    catalog.create(
        catalog.new_product(
            product_id=product_id, name=name or f"Product {product_id}", price=Decimal(price), category=category
        )
    )


def warehouse(warehouse_id: str = "301") -> None:
    catalog.create(catalog.new_warehouse(warehouse_id=warehouse_id, name=f"Warehouse {warehouse_id}"))


def stock(product_id: str = "2001", warehouse_id: str = "301", quantity: int = 100) -> None:
    catalog.create(catalog.new_inventory(product_id=product_id, warehouse_id=warehouse_id, quantity=quantity))


def shop_with(
    *, customers: int = 1, products: int = 1, stock_each: int = 100, categories: Sequence[str | None] = ()
) -> None:
    """Customers 1001.., products 2001.. at 10.50 (prices 10.50, 11.50, ... when ``categories`` are given, and
    each product's category taken in turn from them), one warehouse 301 holding ``stock_each`` of each."""
    warehouse("301")
    for c in range(customers):
        customer(str(1001 + c))
    for p in range(products):
        if categories:
            product(str(2001 + p), price=str(Decimal("10.50") + p), category=categories[p % len(categories)])
        else:
            product(str(2001 + p))
        stock(str(2001 + p), "301", stock_each)
