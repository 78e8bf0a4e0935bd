"""The returns table's data migrations, run with ``manage.py backfill <name>`` beside the shop's
(``settings.MIGRATION_EXTENSIONS`` names them: the shop's command never imports this service). ``refund-customer``
remembers each order's customer for its next refunds; why it is safe beside the service, after a kill and twice:
docs/returns.md, "Refunds written before they named their customer".
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from dynamo import ddb_json, item_codec
from dynamo.backfill import Change, Item, Migration
from returns import keys
from returns.models import Refund, ReturnsItem
from shop import keys as shop_keys
from shop.models import ShopItem

ORDERS_REMEMBERED = 4096  # orders whose customer one run keeps (an LRU: memory stays bounded)


def order_customer(order_key: str) -> str | None:
    """The bare id of the customer who placed the order ``o#<oid>`` (None: no such order): one Query of its
    partition for the order item, the one whose SK is ``c#<cid>``."""
    customer_sk = ShopItem.sk.startswith(shop_keys.CUSTOMER)
    found = next(iter(ShopItem.query(order_key, customer_sk, limit=1, attributes_to_get=["SK"])), None)
    return shop_keys.without_prefix(found.sk, shop_keys.CUSTOMER) if found else None


def planner_of_refund_customers(
    customer_of: Callable[[str], str | None] = order_customer,
) -> Callable[[Item], Change | None]:
    """``plan`` of ``refund-customer``: the order's customer, each order read once per run while it is among the
    ``ORDERS_REMEMBERED`` most recently used."""
    remembered = lru_cache(maxsize=ORDERS_REMEMBERED)(customer_of)

    def plan(raw: Item) -> Change | None:
        plain = item_codec.decode(raw)
        order_id = shop_keys.without_prefix(str(plain.get("PK", "")), shop_keys.ORDER)
        if plain.get(keys.ENTITY_TYPE) != keys.REFUND_ENTITY or order_id is None:
            return None
        customer = remembered(shop_keys.with_prefix(shop_keys.ORDER, order_id))
        if customer is None:
            return None
        key = {"PK": raw["PK"], "SK": raw["SK"]}
        return Change(
            key=key, add={keys.CUSTOMER_ID: ddb_json.s(customer)}, note=f"order {order_id}: customer {customer}"
        )

    return plan


def refund_customer() -> Migration:
    return Migration(
        name="refund-customer",
        description="refunds without CustomerId get their order's customer (the customer's refunded total follows)",
        model=ReturnsItem,
        candidates=(ReturnsItem.entity_type == Refund) & Refund.customer_id.does_not_exist(),
        plan=planner_of_refund_customers(),
    )
