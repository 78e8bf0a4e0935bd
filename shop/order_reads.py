"""Reading one order: its whole item collection (access pattern 5), sorted into its entities; or just the order item
(what a list of orders shows of it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dynamo.paging import all_items, query_page
from shop import access_patterns, keys
from shop.errors import NotFound
from shop.models import AuditEntry, Invoice, Note, Order, OrderItem, Shipment, ShipmentItem


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
    if order is None:
        raise NotFound("order", oid)
    history.sort(key=lambda e: e.sk, reverse=True)
    return OrderCollection(order, items, invoices, shipments, shipment_items, history, notes)


def order_by_id(order_id: str) -> Order | None:
    """The order item alone: Query PK=o#<oid>, SK begins_with c# (its sort key is its customer's key), one item;
    None when there is no such order."""
    page = query_page(Order, keys.order(order_id), limit=1, range_key_condition=Order.sk.startswith(keys.CUSTOMER))
    return page.items[0] if page.items else None
