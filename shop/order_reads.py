"""Reading one order: its whole item collection (access pattern 5), sorted into its entities; or just the order item
(what a list of orders shows of it)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dynamo import ddb_json, side_by_side
from dynamo.batch import Item, batch_get
from dynamo.client import client_of
from dynamo.paging import all_items, query_page
from shop import access_patterns, keys
from shop.errors import NotFound
from shop.models import (
    Address,
    AuditEntry,
    Customer,
    Invoice,
    Note,
    Notification,
    Order,
    OrderItem,
    Product,
    Shipment,
    ShipmentItem,
    ShopItem,
)


@dataclass(frozen=True)
class OrderCollection:
    """Everything under PK=o#<oid> (access pattern 5), sorted into its entities."""

    order: Order
    items: list[OrderItem]
    invoices: list[Invoice]
    shipments: list[Shipment]
    shipment_items: list[ShipmentItem]
    history: list[AuditEntry] = field(default_factory=list)  # staff changes, newest first
    notes: list[Note] = field(default_factory=list)  # staff notes, every version, oldest first (``shop.notes``)
    notifications: list[Notification] = field(default_factory=list)  # to the customer, oldest first


# The collection's parts, in ``OrderCollection``'s order: the order, then each list.
COLLECTED = (Order, OrderItem, Invoice, Shipment, ShipmentItem, AuditEntry, Note, Notification)


def order_collection(order_id: str) -> OrderCollection:
    """The order's whole item collection in one Query (more only if it exceeds a page); NotFound if absent."""
    oid = keys.bare(order_id, keys.ORDER)
    parts: dict[type[ShopItem], list[Any]] = {kind: [] for kind in COLLECTED}
    for item in all_items(access_patterns.order_details, order_id=oid):
        parts.setdefault(type(item), []).append(item)
    if not parts[Order]:
        raise NotFound("order", oid)
    parts[AuditEntry].sort(key=lambda e: e.sk, reverse=True)
    return OrderCollection(parts[Order][-1], *(parts[kind] for kind in COLLECTED[1:]))


def order_by_id(order_id: str) -> Order | None:
    """The order item alone: Query PK=o#<oid>, SK begins_with c#, one item; None when there is none."""
    page = query_page(Order, keys.order(order_id), limit=1, range_key_condition=Order.sk.startswith(keys.CUSTOMER))
    return page.items[0] if page.items else None


def ship_to_fields(address: Address | None) -> dict[str, str | None]:
    """An address as the ship-to's fields: its street with its number, city, zip, country."""
    found = address or Address()
    street = " ".join(p for p in (found.street, found.number) if p) or None
    return {"street": street, "city": found.city, "zip": found.zip_code, "country": found.country}


def ship_to(order: Order) -> Address | None:
    """Where the order goes: the ship-to staff gave it, else its customer's address now (one GetItem)."""
    if order.ship_to is not None:
        return order.ship_to
    customer = access_patterns.customer_by_id(customer_id=order.customer_id)
    return customer.address if customer else None


def order_collections(order_ids: Sequence[str]) -> list[OrderCollection]:
    """The orders' collections (one Query each, side by side), in the order given; NotFound for one absent."""
    wanted = list(dict.fromkeys(keys.bare(oid, keys.ORDER) for oid in order_ids))
    return side_by_side.map_calls(order_collection, wanted)


def found_collections(order_ids: Sequence[str]) -> dict[str, OrderCollection]:
    """The collections of the orders that exist (one Query each, side by side), by order id."""
    wanted = list(dict.fromkeys(keys.bare(oid, keys.ORDER) for oid in order_ids))

    def found(oid: str) -> OrderCollection | None:
        try:
            return order_collection(oid)
        except NotFound:
            return None

    return {oid: c for oid, c in zip(wanted, side_by_side.map_calls(found, wanted), strict=True) if c is not None}


def raw_by_key(wanted: Sequence[tuple[str, str]], attributes: Sequence[str] = ()) -> list[Item | None]:
    """The items of these ``(PK, SK)`` as DynamoDB holds them, lined up with the keys (None: no item), by
    BatchGetItem; ``attributes``: only those (and the keys)."""
    if not wanted:
        return []
    table, key_list = str(ShopItem.Meta.table_name), [ddb_json.key(*k) for k in wanted]
    return batch_get(client_of(ShopItem), table, key_list, key_names=("PK", "SK"), attributes=attributes)


def items_by_key(wanted: Sequence[tuple[str, str]], attributes: Sequence[str] = ()) -> list[ShopItem | None]:
    """``raw_by_key``'s items as the shop's models."""
    return [ShopItem.from_raw_data(raw) if raw else None for raw in raw_by_key(wanted, attributes)]


def product_names(product_ids: Iterable[str]) -> dict[str, str]:
    """The products' names now (one BatchGetItem of ``Detail``), for lines that kept none; unnamed or gone: left out."""
    wanted = list(dict.fromkeys(keys.bare(pid, keys.PRODUCT) for pid in product_ids))
    found = items_by_key([(keys.product(p),) * 2 for p in wanted], ["Detail", keys.ENTITY_TYPE])
    return {
        pid: item.detail.name
        for pid, item in zip(wanted, found, strict=True)
        if isinstance(item, Product) and item.detail and item.detail.name
    }


def customers_of(customer_ids: Iterable[str]) -> dict[str, Customer]:
    """The customers by id, now (one BatchGetItem): a packing slip's address does not wait for the admin view."""
    wanted = list(dict.fromkeys(keys.bare(cid, keys.CUSTOMER) for cid in customer_ids))
    found = items_by_key([(keys.customer(c),) * 2 for c in wanted])
    return {cid: item for cid, item in zip(wanted, found, strict=True) if isinstance(item, Customer)}
