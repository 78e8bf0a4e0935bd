"""The shop's data migrations, run with ``manage.py backfill <name>`` (docs/migrations.md). Each reads at most one
Query per order or one GetItem per product and only adds what is absent (the framework's conditions), so running
one twice, or after a kill, is safe.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from pynamodb.expressions.condition import Condition

from dynamo import ddb_json, item_codec
from dynamo.backfill import Change, Item, Migration
from dynamo.client import client_of
from shop import access_patterns, keys
from shop.delivery import delivery_date_for
from shop.keys import OrderStatus
from shop.models import Customer, Order, OrderItem, Shipment, ShopItem, Warehouse

PRODUCTS_REMEMBERED = 4096  # products whose category one run keeps (an LRU: memory stays bounded)


def _order(raw: Item) -> Order | None:
    item = ShopItem.from_raw_data(raw)
    return item if isinstance(item, Order) else None


def _first_shipment(order: Order) -> Shipment | None:
    page = access_patterns.shipments_for_order(order_id=order.order_id, limit=1)
    return page.items[0] if page.items else None


def _key(raw: Item) -> Item:
    return {"PK": raw["PK"], "SK": raw["SK"]}


def _on_shop(name: str, description: str, candidates: Condition, plan: Callable[[Item], Change | None]) -> Migration:
    """A migration of the shop table's items that match ``candidates`` (a Scan filter)."""
    return Migration(name=name, description=description, model=ShopItem, candidates=candidates, plan=plan)


def plan_delivery_date(raw: Item) -> Change | None:
    order = _order(raw)
    if order is None or order.date is None:
        return None
    shipment = _first_shipment(order)
    if shipment is not None:
        day = delivery_date_for(shipment.date or order.date, shipment.type)
        note = f"{shipment.type or 'Standard'} shipment {shipment.shipment_id}"
    else:
        day, note = delivery_date_for(order.date), "not shipped: standard shipping from the order date"
    return Change(key=_key(raw), add={"DeliveryDate": ddb_json.s(day)}, note=note)


def plan_order_status(raw: Item) -> Change | None:
    order = _order(raw)
    if order is None:
        return None
    shipment = _first_shipment(order)
    status = OrderStatus.SHIPPED if shipment is not None else OrderStatus.PENDING
    note = f"has shipment {shipment.shipment_id}" if shipment else "no shipment"
    return Change(key=_key(raw), add={keys.STATUS: ddb_json.s(status.value)}, note=note)


def delivery_date() -> Migration:
    return _on_shop(
        "delivery-date",
        "orders without DeliveryDate get their expected delivery date (DeliveryDate-index)",
        (ShopItem.entity_type == Order) & Order.delivery_date.does_not_exist(),
        plan_delivery_date,
    )


def order_status() -> Migration:
    return _on_shop(
        "order-status",
        "orders without Status get SHIPPED (they have a shipment) or PENDING",
        (ShopItem.entity_type == Order) & Order.status.does_not_exist(),
        plan_order_status,
    )


def plan_email_claim(raw: Item) -> Change | None:
    plain = item_codec.decode(raw)
    email, customer = plain.get("Email"), str(plain.get("PK", ""))
    if plain.get(keys.ENTITY_TYPE) != "customer" or not isinstance(email, str):
        return None
    try:
        key = keys.email_claim(email)
    except keys.InvalidId:
        return None  # not an address: nothing to claim (an edit will ask for one)
    return Change(
        key=ddb_json.key(key, key),
        add={keys.ENTITY_TYPE: ddb_json.s("emailClaim"), keys.CUSTOMER_ID: ddb_json.s(keys.strip(customer))},
        note=f"claim of {keys.strip(customer)}",
        create=True,
    )


def email_claims() -> Migration:
    return _on_shop(
        "email-claims",
        "customers with an email get the claim that keeps it unique (email#<address>)",
        (ShopItem.entity_type == Customer) & Customer.email.exists(),
        plan_email_claim,
    )


def product_category(product_key: str) -> str | None:
    """A product's ``Category`` (None: no product, or none); one GetItem of that attribute."""
    answer = client_of(ShopItem).get_item(
        TableName=str(ShopItem.Meta.table_name),
        Key=ddb_json.key(product_key, product_key),
        ProjectionExpression="#c",
        ExpressionAttributeNames={"#c": "Category"},
    )
    category = item_codec.decode(answer.get("Item") or {}).get("Category")
    return category.strip() if isinstance(category, str) and category.strip() else None


def planner_of_item_categories(
    category_of: Callable[[str], str | None] = product_category,
) -> Callable[[Item], Change | None]:
    """``plan`` of ``order-item-category``: each product read once per run while among the ``PRODUCTS_REMEMBERED``
    most recently used (a run's own cache: the next run sees an edit made meanwhile)."""
    remembered = lru_cache(maxsize=PRODUCTS_REMEMBERED)(category_of)

    def plan(raw: Item) -> Change | None:
        plain = item_codec.decode(raw)
        product_key = str(plain.get("SK", ""))  # an order item's SK is its product's key, p#<pid>
        product = keys.without_prefix(product_key, keys.PRODUCT)
        if plain.get(keys.ENTITY_TYPE) != "orderItem" or product is None:
            return None
        category = remembered(product_key)
        if category is None:
            return None  # the product has none (or is gone): nothing to copy, the item stays uncategorized
        return Change(key=_key(raw), add={"Category": ddb_json.s(category)}, note=f"product {product}")

    return plan


def order_item_category() -> Migration:
    return _on_shop(
        "order-item-category",
        "order items without Category get their product's (the figures by category follow)",
        (ShopItem.entity_type == OrderItem) & OrderItem.category.does_not_exist(),
        planner_of_item_categories(),
    )


def plan_warehouse_index(raw: Item) -> Change | None:
    plain = item_codec.decode(raw)
    warehouse = keys.without_prefix(str(plain.get("PK", "")), keys.WAREHOUSE)
    if plain.get(keys.ENTITY_TYPE) != "warehouse" or warehouse is None:
        return None
    built = keys.warehouse_keys(warehouse)
    add = {
        ShopItem.gsi1_pk.attr_name: ddb_json.s(built["gsi1_pk"]),
        ShopItem.gsi1_sk.attr_name: ddb_json.s(built["gsi1_sk"]),
    }
    return Change(key=_key(raw), add=add, note=f"warehouse {warehouse}")


def warehouse_index() -> Migration:
    return _on_shop(
        "warehouse-index",
        "warehouses without GSI1 keys get them (the list of every warehouse)",
        (ShopItem.entity_type == Warehouse) & ShopItem.gsi1_pk.does_not_exist(),
        plan_warehouse_index,
    )


Factory = Callable[[], Migration]
MIGRATIONS: dict[str, Factory] = {
    factory().name: factory
    for factory in (delivery_date, order_status, email_claims, order_item_category, warehouse_index)
}


def registry(extensions: Sequence[Factory] = ()) -> dict[str, Factory]:
    """The shop's migrations and other services' (``settings.MIGRATION_EXTENSIONS``), by name."""
    return dict(MIGRATIONS) | {factory().name: factory for factory in extensions}


def get(name: str, extensions: Sequence[Factory] = ()) -> Migration:
    known = registry(extensions)
    factory = known.get(name)
    if factory is None:
        raise LookupError(f"unknown migration {name!r}; known: {', '.join(known)}")
    return factory()
