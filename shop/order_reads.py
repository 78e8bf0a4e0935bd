"""Reading one order: its whole item collection (access pattern 5), sorted into its entities; or just the order item
(what a list of orders shows of it)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from dynamo import ddb_json, item_codec, side_by_side
from dynamo.batch import batch_get
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


def order_collection(order_id: str) -> OrderCollection:
    """The order's whole item collection in one Query (more only if it exceeds a page); NotFound if absent."""
    oid = keys.bare(order_id, keys.ORDER)
    order: Order | None = None
    items: list[OrderItem] = []
    invoices: list[Invoice] = []
    shipments: list[Shipment] = []
    shipment_items: list[ShipmentItem] = []
    history: list[AuditEntry] = []
    notes: list[Note] = []
    notifications: list[Notification] = []
    for item in all_items(access_patterns.order_details, order_id=oid):
        if isinstance(item, Order):
            order = item
        elif isinstance(item, OrderItem):
            items.append(item)
        elif isinstance(item, Invoice):
            invoices.append(item)
        elif isinstance(item, Shipment):
            shipments.append(item)
        elif isinstance(item, ShipmentItem):
            shipment_items.append(item)
        elif isinstance(item, AuditEntry):
            history.append(item)
        elif isinstance(item, Note):
            notes.append(item)
        elif isinstance(item, Notification):
            notifications.append(item)
    if order is None:
        raise NotFound("order", oid)
    history.sort(key=lambda e: e.sk, reverse=True)
    return OrderCollection(order, items, invoices, shipments, shipment_items, history, notes, notifications)


def order_by_id(order_id: str) -> Order | None:
    """The order item alone: Query PK=o#<oid>, SK begins_with c# (its sort key is its customer's key), one item;
    None when there is no such order."""
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
    """The orders' item collections (pattern 5: one Query each, side by side), in the order given (duplicates
    once); NotFound for the first that is absent."""
    wanted = list(dict.fromkeys(keys.bare(oid, keys.ORDER) for oid in order_ids))
    return side_by_side.map_calls(order_collection, wanted)


def found_collections(order_ids: Sequence[str]) -> dict[str, OrderCollection]:
    """The collections of those of the orders that exist (one Query each, side by side), by order id: a page of
    orders costs one call per order whatever the table holds."""
    wanted = list(dict.fromkeys(keys.bare(oid, keys.ORDER) for oid in order_ids))

    def found(oid: str) -> OrderCollection | None:
        try:
            return order_collection(oid)
        except NotFound:
            return None

    return {oid: c for oid, c in zip(wanted, side_by_side.map_calls(found, wanted), strict=True) if c is not None}


def product_names(product_ids: Iterable[str]) -> dict[str, str]:
    """The products' names now (one BatchGetItem of the distinct ids, their ``Detail`` only; none for no ids), for
    lines that did not keep the name they were ordered under; a product without a name or gone is left out."""
    wanted = list(dict.fromkeys(keys.bare(pid, keys.PRODUCT) for pid in product_ids))
    if not wanted:
        return {}
    product_keys = [ddb_json.key(keys.product(p), keys.product(p)) for p in wanted]
    table = str(ShopItem.Meta.table_name)
    found = batch_get(client_of(ShopItem), table, product_keys, key_names=("PK", "SK"), attributes=["Detail"])
    names: dict[str, str] = {}
    for pid, raw in zip(wanted, found, strict=True):
        name = (item_codec.decode(raw or {}).get("Detail") or {}).get("Name")
        if name and isinstance(name, str):
            names[pid] = name
    return names


def customers_of(customer_ids: Iterable[str]) -> dict[str, Customer]:
    """The customers by id as the shop table holds them now (one BatchGetItem of the distinct ids; none for no
    ids), as the order page reads its one: a packing slip's name and address do not wait for the admin view."""
    wanted = list(dict.fromkeys(keys.bare(cid, keys.CUSTOMER) for cid in customer_ids))
    if not wanted:
        return {}
    customer_keys = [ddb_json.key(keys.customer(c), keys.customer(c)) for c in wanted]
    found = batch_get(client_of(ShopItem), str(ShopItem.Meta.table_name), customer_keys, key_names=("PK", "SK"))
    items = (ShopItem.from_raw_data(raw) if raw else None for raw in found)
    return {cid: item for cid, item in zip(wanted, items, strict=True) if isinstance(item, Customer)}
