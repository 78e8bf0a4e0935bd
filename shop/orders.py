"""Domain writes for orders: place, ship (wholly or in part), deliver, cancel, each one TransactWriteItems with its
audit entry. Placing takes stock conditioned on the exact level read, so it never oversells; status changes
(``lifecycle.ORDER``) are conditioned on the status read and ``Version``, so two staff cannot both win.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from decimal import Decimal

from dynamo import backoff
from dynamo.transactions import Transaction, TransactionCancelled, request_token
from shop import audit, keys, notifications, order_parts, order_status, tracking
from shop.audit import Actor
from shop.delivery import delivery_date_for
from shop.errors import Busy, InvalidInput, NotFound, OrderConflict
from shop.keys import OrderStatus
from shop.lifecycle import ORDER
from shop.models import Address, Customer, Order, OrderItem, Shipment, ShopItem
from shop.order_builders import SHIPMENT_TYPES, PricedLine, build_payments, build_placement, build_shipments
from shop.order_builders import OrderLine as OrderLine
from shop.order_builders import PaymentSpec as PaymentSpec
from shop.order_parts import MAX_LINES as MAX_LINES
from shop.order_parts import MAX_QUANTITY as MAX_QUANTITY
from shop.order_parts import changeable, commit_order_change, pick_warehouse, products, stock_to_return, take_stock
from shop.order_parts import whole_number as whole_number
from shop.order_reads import OrderCollection as OrderCollection
from shop.order_reads import order_collection as order_collection
from shop.order_reads import ship_to
from shop.payments import MANUAL
from shop.timestamps import now

CREATE = "create"  # the audit trail's name of an order staff create
DELIVERY_DATE = Order.delivery_date.attr_name  # the attribute a ship's audit entry names when it moves the date


def new_id() -> str:
    return secrets.token_hex(6)


def _validate_lines(lines: Sequence[OrderLine]) -> list[OrderLine]:
    if not lines:
        raise InvalidInput("an order needs at least one line")
    merged: dict[str, OrderLine] = {}
    for line in lines:
        pid = keys.bare(line.product_id, keys.PRODUCT)
        quantity = whole_number(line.quantity, what=f"quantity of {pid}")
        if line.price is not None and not (line.price.is_finite() and line.price >= 0):
            raise InvalidInput(f"price of {pid} must be an amount of 0 or more")
        wid = keys.bare(line.warehouse_id, keys.WAREHOUSE) if line.warehouse_id else None
        first = merged.get(pid)
        merged[pid] = OrderLine(
            pid,
            quantity + (first.quantity if first else 0),
            first.price if first and first.price is not None else line.price,
            first.warehouse_id if first and first.warehouse_id else wid,
        )
    if len(merged) > MAX_LINES:
        raise InvalidInput(f"an order holds at most {MAX_LINES} different products")
    return list(merged.values())


def order_place(
    *,
    customer_id: str,
    lines: Sequence[OrderLine],
    payments: Sequence[PaymentSpec] | None = None,
    placed_at: datetime | None = None,
    order_id: str | None = None,
    invoice_id: str | None = None,
    paid_by: str | None = None,
    actor: Actor | None = None,
    notify: bool = False,
    ship_to: Address | None = None,
) -> Order:
    """Place an order as PENDING; NotFound, OutOfStock, InvalidInput, Busy. Staff (``actor``) may give a line's
    price and warehouse, ``ship_to`` (None: the customer's address), ``paid_by`` (a manual payment of the total:
    its reference) or ``payments=[]`` (paid later); ``notify`` writes the confirmation in the same transaction."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    oid = keys.bare(order_id, keys.ORDER) if order_id else new_id()
    iid = keys.bare(invoice_id, keys.INVOICE) if invoice_id else oid
    wanted = _validate_lines(lines)
    bought = products(
        [line.product_id for line in wanted], frozenset(line.product_id for line in wanted if line.price is not None)
    )
    placed = placed_at or now()
    at_prices = [PricedLine.of(bought[line.product_id], line.quantity, price=line.price) for line in wanted]
    total = sum((line.price * line.quantity for line in at_prices), Decimal(0))
    if paid_by is not None:
        payments = [PaymentSpec(MANUAL, total, transaction_id=paid_by)] if total > 0 else []
    payment_items = build_payments(payments, total)

    def attempt() -> Order:
        picks = {line.product_id: pick_warehouse(line.product_id, line.quantity, line.warehouse_id) for line in wanted}
        priced = [replace(line, warehouse_id=picks[line.product_id].warehouse_id) for line in at_prices]
        order, items, invoice = build_placement(
            order_id=oid, invoice_id=iid, customer_id=cid, lines=priced, payments=payment_items, placed_at=placed
        )
        order.ship_to = ship_to
        tx = Transaction(ShopItem, token=request_token())
        tx.check("customer", Customer, keys.customer(cid), keys.customer(cid), Customer.pk.exists())
        tx.put("order", order, ShopItem.pk.does_not_exist())
        for item in items:
            tx.put(f"item:{item.product_id}", item, ShopItem.pk.does_not_exist())
        tx.put("invoice", invoice, ShopItem.pk.does_not_exist())
        audit.record(tx, actor, action=CREATE, order_id=oid, to_status=OrderStatus.PENDING.value, order_version=1)
        if notify:
            notifications.add(tx, oid, notifications.Kind.CREATED, at=placed)
        for line in wanted:
            take_stock(tx, line.product_id, picks[line.product_id], line.quantity)
        try:
            tx.commit()
        except TransactionCancelled as exc:
            if "customer" in exc.reasons:
                raise NotFound("customer", cid) from exc
            if {"order", "invoice"} & set(exc.failed("ConditionalCheckFailed")):
                raise OrderConflict(oid, None, f"order {oid} (or invoice {iid}) already exists") from exc
            if exc.only_conflicts or any(label.startswith("stock:") for label in exc.failed("ConditionalCheckFailed")):
                raise backoff.LostRace from exc
            raise
        return order

    return backoff.RACES.rerun(attempt, gave_up=Busy.contended(f"placing order {oid}"))


def _commit_status_change(tx: Transaction, order_id: str, action: str) -> None:
    """Commit; a failed condition is a conflict (saying what the order is now), another transaction ``Busy``."""
    try:
        tx.commit()
    except TransactionCancelled as exc:
        if exc.only_conflicts:
            raise Busy(
                f"order {order_id} is being changed by another request; nothing was {action}, try again"
            ) from exc
        raise ORDER.lost(order_id, order_collection(order_id).order.status, action) from exc


def order_ship(
    *,
    order_id: str,
    expected_version: int | None = None,
    shipped_at: datetime | None = None,
    shipment_type: str = "Standard",
    actor: Actor | None = None,
    carrier: str | None = None,
    tracking_number: str | None = None,
    warehouse_tracking: Mapping[str, str | None] | None = None,
    notify: bool = False,
    quantities: Mapping[str, int] | None = None,
) -> Order:
    """PENDING -> SHIPPED once every unit has shipped (until then it stays PENDING), its shipments as
    ``order_builders.build_shipments`` makes them. ``quantities``: units to ship now by product id (None: every unit
    left); ``notify`` tells the customer in the same transaction."""
    oid = keys.bare(order_id, keys.ORDER)
    if shipment_type not in SHIPMENT_TYPES:
        raise InvalidInput(f"shipment type must be one of {', '.join(SHIPMENT_TYPES)}")
    carrier = tracking.reference(carrier, what="carrier")
    tracking_number = tracking.reference(tracking_number, what="tracking number")
    own = {
        keys.bare(wid, keys.WAREHOUSE): tracking.reference(number, what=f"tracking number from warehouse {wid}")
        for wid, number in (warehouse_tracking or {}).items()
    }
    collection = order_collection(oid)
    order = changeable(collection, "ship", expected_version)
    unknown = sorted(set(own) - {i.warehouse_id for i in collection.items if i.warehouse_id})
    if unknown:
        raise InvalidInput(f"order {oid} ships from no warehouse {', '.join(unknown)}")
    sent = order_status.shipped(collection)
    units = _to_ship(oid, collection.items, sent, quantities)
    whole = all(sent.get(i.product_id, 0) + units.get(i.product_id, 0) >= i.quantity for i in collection.items)
    shipped = shipped_at or now()
    shipments = build_shipments(
        order=order,
        items=collection.items,
        shipped_at=shipped,
        shipment_type=shipment_type,
        address=ship_to(order),
        first_number=len(collection.shipments) + 1,
        carrier=carrier,
        tracking_number=tracking_number,
        warehouse_tracking=own,
        quantities=units,
    )
    tx = Transaction(ShopItem, token=request_token())
    # Shipping fixes the expected delivery (ship date + the shipment type's days); DeliveryDate-index follows.
    # When that moves the date the customer was given, the audit entry says from what to what.
    delivery = delivery_date_for(shipped, shipment_type)
    moved = [audit.Changed(DELIVERY_DATE, order.delivery_date, delivery)] if order.delivery_date != delivery else []
    part = None if whole else "part: " + ", ".join(f"{pid} \N{MULTIPLICATION SIGN} {n}" for pid, n in units.items())
    sets = [Order.delivery_date.set(delivery)]
    order_parts.take_step(tx, order, "ship" if whole else "ship_part", sets, actor=actor, changes=moved, detail=part)
    for item in shipments:
        tx.put(f"{item.sk}", item, ShopItem.pk.does_not_exist())
    if notify:
        ids = ",".join(s.shipment_id for s in shipments if isinstance(s, Shipment))
        notifications.add(tx, oid, notifications.Kind.SHIPPED, detail=ids, at=shipped)
    _commit_status_change(tx, oid, "shipped")
    return order


def _to_ship(
    oid: str, items: Sequence[OrderItem], sent: Mapping[str, int], quantities: Mapping[str, int] | None
) -> dict[str, int]:
    """Units to ship now by product id: every unit left, or those given; InvalidInput for none or too many."""
    left = {item.product_id: item.quantity - sent.get(item.product_id, 0) for item in items}
    if quantities is None:
        wanted = {pid: n for pid, n in left.items() if n > 0}
    else:
        wanted = {}
        for product_id, n in quantities.items():
            pid = keys.bare(product_id, keys.PRODUCT)
            if pid not in left:
                raise InvalidInput(f"quantity-{pid}: order {oid} has no line of product {pid}")
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= left[pid]:
                raise InvalidInput(f"quantity-{pid}: {left[pid]} of product {pid} left to ship, not {n}")
            if n:
                wanted[pid] = n
    if not wanted:
        raise InvalidInput(f"order {oid}: nothing to ship (every quantity is 0, or nothing is left)")
    return wanted


def order_deliver(*, order_id: str, expected_version: int | None = None, actor: Actor | None = None) -> Order:
    """SHIPPED -> DELIVERED."""
    oid = keys.bare(order_id, keys.ORDER)
    order = changeable(order_collection(oid), "deliver", expected_version)
    tx = Transaction(ShopItem, token=request_token())
    order_parts.take_step(tx, order, "deliver", actor=actor)
    _commit_status_change(tx, oid, "delivered")
    return order


CancelExtra = Callable[[Transaction, OrderCollection], None]
"""Adds another service's writes (a refund of what was paid) to a cancel's transaction, from the order as read."""


def partly_shipped(collection: OrderCollection) -> bool:
    """A pending order with a shipment made: it cannot be cancelled, only what is left edited out."""
    return bool(collection.shipments)


def order_cancel(
    *,
    order_id: str,
    expected_version: int | None = None,
    actor: Actor | None = None,
    reason: str | None = None,
    extra: CancelExtra | None = None,
) -> Order:
    """PENDING -> CANCELLED; each item's stock goes back to its warehouse; ``reason`` (``cancel_reasons.words``) is
    kept on the order and its audit entry. ``extra`` (so the shop need not know the caller) runs again on each
    retry, and a failed condition of its actions retries the cancel from its reads."""
    oid = keys.bare(order_id, keys.ORDER)
    reason_set = [Order.cancel_reason.set(reason)] if reason else []

    def attempt() -> Order:
        collection = order_collection(oid)
        order = changeable(collection, "cancel", expected_version)
        if partly_shipped(collection):
            raise OrderConflict(
                oid, order.status, f"order {oid} is partly shipped: edit out what is left to ship instead of cancelling"
            )
        stock = stock_to_return(collection.items)
        tx = Transaction(ShopItem, token=request_token())
        order_parts.take_step(
            tx, order, "cancel", reason_set, actor=actor, detail=f"reason: {reason}" if reason else None
        )
        for item, row in stock:
            take_stock(tx, item.product_id, row, -item.quantity)
        if extra is not None:
            extra(tx, collection)
        commit_order_change(tx, oid, "cancelled")
        return order

    return backoff.RACES.rerun(attempt, gave_up=Busy.contended(f"cancelling order {oid}"))
