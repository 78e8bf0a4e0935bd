"""Helpers for the model-evolution tests: a shop table as it was before an index existed, and many orders
written fast with the seeding builders and BatchWriteItem."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal

from dynamo.batch import batch_write, put_request
from dynamo.client import client_of
from dynamo.tables import _schema, wait_active
from shop.models import Payment, ShopItem
from shop.order_builders import PricedLine, build_placement

BASE_DAY = datetime(2026, 3, 1, 9, 30)


def create_shop_table_without(index_name: str, prefix: str = "OnlineShopLegacy") -> str:
    """Create a shop table lacking ``index_name`` (as deployed before the index was declared); points
    ShopItem at it and returns its name."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    ShopItem.Meta.table_name = name
    client = client_of(ShopItem)
    wanted = _schema(ShopItem)
    indexes = [i for i in wanted["GlobalSecondaryIndexes"] if i["IndexName"] != index_name]
    used = {k["AttributeName"] for k in wanted["KeySchema"]}
    used |= {k["AttributeName"] for i in indexes for k in i["KeySchema"]}
    client.create_table(
        TableName=name,
        KeySchema=wanted["KeySchema"],
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[d for d in wanted["AttributeDefinitions"] if d["AttributeName"] in used],
        GlobalSecondaryIndexes=indexes,
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    wait_active(client, name)
    return name


def placed_at(n: int, days: int = 10) -> datetime:
    """Order ``n`` is placed on one of ``days`` consecutive days, so delivery dates spread over them."""
    return BASE_DAY + timedelta(days=n % days, minutes=n % 600)


def order_items(
    count: int,
    *,
    first: int = 1,
    legacy: bool = False,
    customers: int = 50,
    products: int = 20,
    only_orders: bool = False,
) -> Iterator[ShopItem]:
    """``count`` orders (order, one item, invoice) built by ``build_placement``. ``legacy``: as
    written before orders carried ``DeliveryDate`` and ``Status``, like AWS's sample orders.
    ``only_orders``: just the order items (what DeliveryDate-index holds), to write many quickly."""
    for n in range(first, first + count):
        pid = str(2001 + n % products)
        line = PricedLine(pid, 1 + n % 3, Decimal("10.50"), f"Product {pid}", "301")
        total = line.price * line.quantity
        order, items, invoice = build_placement(
            order_id=f"L{n:06d}",
            invoice_id=f"L{n:06d}",
            customer_id=str(1001 + n % customers),
            lines=[line],
            payments=[Payment(type="Card", amount=total)],
            placed_at=placed_at(n),
        )
        if legacy:
            order.delivery_date = None
            order.status = None
        yield order
        if not only_orders:
            yield from items
            yield invoice


def write(items: Iterator[ShopItem]) -> int:
    return batch_write(
        client_of(ShopItem), str(ShopItem.Meta.table_name), (put_request(i) for i in items), key_names=("PK", "SK")
    )
