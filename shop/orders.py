"""Domain writes for orders: place, ship, deliver, cancel. Each is one TransactWriteItems with conditions.

- ``order_place``: the order, its items, the invoice with payments, and a stock decrement per line
  conditioned on the stock level read (exact value, since stock is a string on the wire), plus a check
  that the customer exists. All or nothing; never oversells under any concurrency.
- ``order_ship``, ``order_deliver``, ``order_cancel``: the steps of ``shop.lifecycle.ORDER``. Shipping makes a
  shipment per warehouse (carrier and tracking number on each, when given) with its items and recomputes the
  expected delivery date (the audit entry records a move); cancelling returns the stock where it came from.
  A part of the units may ship (the step ``ship_part``): the order stays PENDING, a new version, until every
  unit has; a partly shipped order cannot be cancelled.

Status changes are conditioned on the status read and on the order's ``Version`` (optimistic locking,
PynamoDB's VersionAttribute), so two staff acting at once cannot both win. Given an ``actor`` (a staff
member and request id), each also writes its audit entry (``shop.audit``) in the same transaction.
Conflicts on stock from concurrent orders are retried with jittered backoff; the caller only ever sees domain errors.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from pynamodb.expressions.update import Action

from dynamo import backoff, ddb_json
from dynamo.batch import batch_get
from dynamo.client import client_of
from dynamo.paging import all_items
from dynamo.transactions import Transaction, TransactionCancelled, request_token
from shop import access_patterns, audit, keys, notifications, order_status, tracking
from shop.audit import Actor
from shop.delivery import delivery_date_for
from shop.errors import Busy, InvalidInput, NotFound, OrderConflict, OutOfStock
from shop.keys import OrderStatus
from shop.lifecycle import ORDER
from shop.models import Customer, Inventory, Order, OrderItem, Product, Shipment, ShopItem
from shop.order_builders import SHIPMENT_TYPES, PricedLine, build_payments, build_placement, build_shipments
from shop.order_builders import OrderLine as OrderLine
from shop.order_builders import PaymentSpec as PaymentSpec
from shop.order_reads import OrderCollection as OrderCollection
from shop.order_reads import order_collection as order_collection
from shop.order_reads import ship_to
from shop.payments import MANUAL
from shop.timestamps import now

CREATE = "create"  # the audit trail's name of an order staff create
DELIVERY_DATE = Order.delivery_date.attr_name  # the attribute a ship's audit entry names when it moves the date
MAX_LINES = 25  # 2 writes a line + 3: well inside DynamoDB's 100 operations per transaction
MAX_QUANTITY = 10_000


def new_id() -> str:
    return secrets.token_hex(6)


# --- place ----------------------------------------------------------------------------------------------


def _validate_lines(lines: Sequence[OrderLine]) -> list[OrderLine]:
    if not lines:
        raise InvalidInput("an order needs at least one line")
    merged: dict[str, OrderLine] = {}
    for line in lines:
        pid = keys.bare(line.product_id, keys.PRODUCT)
        quantity = line.quantity
        if isinstance(quantity, bool) or not isinstance(quantity, int) or not 0 < quantity <= MAX_QUANTITY:
            raise InvalidInput(f"quantity of {pid} must be a whole number from 1 to {MAX_QUANTITY}")
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


def _products(product_ids: list[str], priced: frozenset[str] = frozenset()) -> dict[str, Product]:
    """The products by id; NotFound for one that is absent, InvalidInput for one without a price unless its line
    gives one (``priced``)."""
    keys_ = [ddb_json.key(keys.product(p), keys.product(p)) for p in product_ids]
    found = batch_get(client_of(ShopItem), str(ShopItem.Meta.table_name), keys_, key_names=("PK", "SK"))
    products: dict[str, Product] = {}
    for pid, raw in zip(product_ids, found, strict=True):
        item = ShopItem.from_raw_data(raw) if raw else None
        if not isinstance(item, Product):
            raise NotFound("product", pid)
        if item.price is None and pid not in priced:
            raise InvalidInput(f"product {pid} has no price and cannot be ordered")
        products[pid] = item
    return products


def _pick_warehouse(product_id: str, quantity: int, warehouse_id: str | None = None) -> Inventory:
    """The warehouse holding the most of the product (ties: lowest id), or ``warehouse_id``, if it holds enough."""
    rows = sorted(
        all_items(access_patterns.inventory_for_product, product_id=product_id), key=lambda r: (-r.quantity, r.sk)
    )
    if warehouse_id is not None:
        rows = [r for r in rows if r.warehouse_id == warehouse_id]
        if not rows:
            raise InvalidInput(f"warehouse {warehouse_id} holds no product {product_id}")
    best = rows[0] if rows else None
    if best is None or best.quantity < quantity:
        raise OutOfStock(product_id, quantity, best.quantity if best else 0)
    return best


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
) -> Order:
    """Place an order as PENDING; raises NotFound (customer/product), OutOfStock, InvalidInput, Busy. Staff
    creating one (``actor``, audited as ``create``) may give a line's price and warehouse, and either ``paid_by``
    (the reference of a manual payment of the whole total) or ``payments=[]`` (paid later); ``notify`` writes the
    customer's confirmation (``shop.notifications``) in the same transaction."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    oid = keys.bare(order_id, keys.ORDER) if order_id else new_id()
    iid = keys.bare(invoice_id, keys.INVOICE) if invoice_id else oid
    wanted = _validate_lines(lines)
    products = _products(
        [line.product_id for line in wanted], frozenset(line.product_id for line in wanted if line.price is not None)
    )
    listed = {pid: product.price or Decimal(0) for pid, product in products.items()}  # _products checked them
    price = {line.product_id: listed[line.product_id] if line.price is None else line.price for line in wanted}
    placed = placed_at or now()
    total = sum((price[line.product_id] * line.quantity for line in wanted), Decimal(0))
    if paid_by is not None:
        payments = [PaymentSpec(MANUAL, total, transaction_id=paid_by)] if total > 0 else []
    payment_items = build_payments(payments, total)

    def attempt() -> Order:
        picks = {line.product_id: _pick_warehouse(line.product_id, line.quantity, line.warehouse_id) for line in wanted}
        priced = [
            PricedLine(
                line.product_id,
                line.quantity,
                price[line.product_id],
                products[line.product_id].name,
                picks[line.product_id].warehouse_id,
                products[line.product_id].category,
            )
            for line in wanted
        ]
        order, items, invoice = build_placement(
            order_id=oid, invoice_id=iid, customer_id=cid, lines=priced, payments=payment_items, placed_at=placed
        )
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
            row = picks[line.product_id]
            tx.update(
                f"stock:{line.product_id}",
                row,
                [Inventory.quantity.set(row.quantity - line.quantity)],
                Inventory.quantity == row.quantity,
            )
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


# --- status changes -----------------------------------------------------------------------------------


def _require(collection: OrderCollection, action: str, expected_version: int | None) -> Order:
    order = collection.order
    ORDER.require(action, order.order_id, order.status)
    if expected_version is not None and order.version != expected_version:
        raise OrderConflict(
            order.order_id,
            order.status,
            f"order {order.order_id} changed meanwhile (version {order.version}, "
            f"you saw {expected_version}); reload and try again",
        )
    return order


def _status_update(
    tx: Transaction, order: Order, action: str, extra: Sequence[Action] = (), *, actor: Actor | None, **entry: Any
) -> None:
    """``action``'s change (``lifecycle.Lifecycle.take``); its audit entry lists ``changes``: the attributes
    ``extra`` moved, with their before and after (or says ``detail``). PynamoDB adds "Version = <read version>" to
    the condition and increments Version."""
    ORDER.take(
        tx, order, action, extra, actor=actor, order_id=order.order_id, order_version=(order.version or 0) + 1, **entry
    )


def _commit_status_change(tx: Transaction, order_id: str, action: str) -> None:
    """Commit; a failed condition means someone else changed the order first: say what it is now. Another
    transaction holding the order (or throttling) changed nothing yet: that is ``Busy``, not a conflict."""
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
    """PENDING -> SHIPPED once every unit has shipped (until then it stays PENDING), creating one shipment per
    warehouse the units are taken from, each with the ``carrier`` given and its own tracking number:
    ``warehouse_tracking[warehouse id]``, else ``tracking_number`` (all optional; checked by ``shop.tracking``:
    InvalidInput, as is a warehouse the order does not ship from). ``quantities``: units to ship now by product id
    (``_to_ship``); None ships every unit not shipped yet. ``notify``: the customer is told, with the shipments'
    ids (``shop.notifications``), in the same transaction."""
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
    order = _require(collection, "ship", expected_version)
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
    moved = order.delivery_date != delivery
    _status_update(
        tx,
        order,
        "ship" if whole else "ship_part",
        [Order.delivery_date.set(delivery)],
        actor=actor,
        changes=[audit.Changed(DELIVERY_DATE, order.delivery_date, delivery)] if moved else (),
        detail=None
        if whole
        else "part: " + ", ".join(f"{pid} \N{MULTIPLICATION SIGN} {n}" for pid, n in units.items()),
    )
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
    """Units to ship now by product id: every unit left when ``quantities`` is None, else those given (InvalidInput
    for a product the order lacks, or more than is left of it); InvalidInput when that is nothing."""
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
    order = _require(order_collection(oid), "deliver", expected_version)
    tx = Transaction(ShopItem, token=request_token())
    _status_update(tx, order, "deliver", actor=actor)
    _commit_status_change(tx, oid, "delivered")
    return order


CancelExtra = Callable[[Transaction, OrderCollection], None]
"""Adds another service's writes that must happen with a cancel (a refund of what was paid) to its transaction,
from the order as read."""


def order_cancel(
    *,
    order_id: str,
    expected_version: int | None = None,
    actor: Actor | None = None,
    reason: str | None = None,
    extra: CancelExtra | None = None,
) -> Order:
    """PENDING -> CANCELLED; the stock of each item goes back to the warehouse it was taken from. ``reason``: the
    words of ``shop.cancel_reasons.words``, kept on the order and in its audit entry. ``extra`` adds the caller's
    own actions to the same transaction (so the shop need not know the caller); it runs again on each retry, and a
    failed condition of its actions retries the cancel from its reads."""
    oid = keys.bare(order_id, keys.ORDER)
    reason_set = [Order.cancel_reason.set(reason)] if reason else []

    def attempt() -> Order:
        collection = order_collection(oid)
        order = _require(collection, "cancel", expected_version)
        if collection.shipments:
            raise OrderConflict(
                oid, order.status, f"order {oid} is partly shipped: edit out what is left to ship instead of cancelling"
            )
        stock = _stock_to_return(collection.items)
        tx = Transaction(ShopItem, token=request_token())
        _status_update(
            tx,
            order,
            "cancel",
            reason_set,
            actor=actor,
            detail=f"reason: {reason}" if reason else None,
        )
        for item, row in stock:
            tx.update(
                f"stock:{item.product_id}",
                row,
                [Inventory.quantity.set(row.quantity + item.quantity)],
                Inventory.quantity == row.quantity,
            )
        if extra is not None:
            extra(tx, collection)
        try:
            tx.commit()
        except TransactionCancelled as exc:
            order_failed = "order" in exc.reasons and not exc.only_conflicts
            if not order_failed:
                raise backoff.LostRace from exc
            raise ORDER.lost(oid, order_collection(oid).order.status, "cancelled") from exc
        return order

    return backoff.RACES.rerun(attempt, gave_up=Busy.contended(f"cancelling order {oid}"))


def _stock_to_return(items: list[OrderItem]) -> list[tuple[OrderItem, Inventory]]:
    """Each item with the current stock record it was taken from (BatchGetItem); items whose warehouse is
    unknown (legacy data) or whose stock record is gone get nothing back."""
    taken = [i for i in items if i.warehouse_id]
    if not taken:
        return []
    wanted = [ddb_json.key(i.sk, keys.with_prefix(keys.WAREHOUSE, str(i.warehouse_id))) for i in taken]
    rows = batch_get(client_of(ShopItem), str(ShopItem.Meta.table_name), wanted, key_names=("PK", "SK"))
    return [(item, Inventory.from_raw_data(raw)) for item, raw in zip(taken, rows, strict=True) if raw]
