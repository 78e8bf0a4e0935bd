"""Domain writes of returns and refunds, each one TransactWriteItems with conditions (``shop.orders``' way), with
its audit entry when given an ``actor``: see docs/returns.md, "The actions and their guarantees". Conditions that
fail on anything but the status (stock moved, another refund landed) run the action again from its reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from functools import partial
from typing import Any

from pynamodb.expressions.update import Action

from dynamo import backoff
from dynamo.instrumentation import run_in_context
from dynamo.paging import all_items
from dynamo.transactions import Transaction, TransactionCancelled, request_token
from returns import access_patterns, keys, refunds, restock
from returns.errors import RefundAboveReturned, RefundTooLarge, ReturnConflict
from returns.keys import ReturnReason, ReturnStatus
from returns.lifecycle import RETURN
from returns.models import Refund, ReturnItem, ReturnLine, ReturnsItem
from returns.refunds import MAX_REASON as MAX_REASON
from returns.refunds import text_of as text_of
from shop import access_patterns as shop_access_patterns
from shop import audit, order_edit, orders
from shop import keys as shop_keys
from shop.audit import Actor
from shop.errors import Busy, InvalidInput, NotFound, OrderConflict
from shop.keys import OrderStatus
from shop.models import Order
from shop.order_reads import OrderCollection, order_collection
from shop.timestamps import now

# Actions as the audit trail and the activity list name them.
REQUEST, CREATE = "return-request", "return-create"  # the steps of ``lifecycle.RETURN`` name their own
MAX_LINES = orders.MAX_LINES
PREVIEW_WORKERS = 8  # orders read at once for a confirmation


@dataclass(frozen=True)
class Line:
    """A line of a return request: a product of the order, how many units, and why."""

    product_id: str
    quantity: int
    reason: str
    reason_text: str | None = None  # the words of an OTHER reason


@dataclass(frozen=True)
class Count:
    """What came back of a return's line: ``received`` units, ``restocked`` of them back in stock (None: all), into
    ``warehouse_id`` (None: the return's)."""

    received: int | None = None
    restocked: int | None = None
    warehouse_id: str | None = None


def about(rid: str, text: str = "") -> str:
    """The ``Detail`` of a return's audit entry: ``return <rid>`` then what happened (``is_about`` finds them)."""
    return f"return {rid}" + (f": {text}" if text else "")


def is_about(detail: str | None, rid: str) -> bool:
    head = about(rid)
    return detail is not None and (detail == head or detail.startswith(head + ": "))


# --- request ---------------------------------------------------------------------------------------------------


def reason_of(value: object) -> ReturnReason:
    try:
        return ReturnReason(str(value))
    except ValueError:
        known = ", ".join(r.value for r in ReturnReason)
        raise InvalidInput(f"{value!r} is not a reason: one of {known}") from None


def _checked_lines(lines: Sequence[Line], *, coded: bool) -> dict[str, ReturnLine]:
    """Product id -> its line; a product twice has its units added and its first reason kept. ``coded``: each
    reason must be a ``ReturnReason`` (an OTHER one with its words); else any text (a customer's words)."""
    if not lines:
        raise InvalidInput("a return needs at least one line")
    merged: dict[str, ReturnLine] = {}
    for line in lines:
        pid = shop_keys.bare(line.product_id, shop_keys.PRODUCT)
        quantity = orders.whole_number(line.quantity, what=f"the quantity of {pid}")
        words = None
        if coded:
            reason = reason_of(line.reason).value
            if reason == ReturnReason.OTHER:
                words = text_of(line.reason_text, what=f"reason for {pid}")
        else:
            reason = text_of(line.reason, what="reason")
        if pid in merged:
            merged[pid].quantity += quantity
        else:
            merged[pid] = ReturnLine(product_id=pid, quantity=quantity, reason=reason, reason_text=words)
    if len(merged) > MAX_LINES:
        raise InvalidInput(f"a return holds at most {MAX_LINES} different products")
    return merged


def returnable(collection: OrderCollection) -> dict[str, int]:
    """Units of each product of the order not in one of its returns yet (rejected ones aside): one Query."""
    left = {item.product_id: item.quantity for item in collection.items}
    for found in all_items(access_patterns.returns_for_order, order_id=collection.order.order_id):
        if found.return_status is not ReturnStatus.REJECTED:
            for line in found.lines or []:
                left[line.product_id] = left.get(line.product_id, 0) - (line.quantity or 0)
    return left


def return_request(
    *,
    order_id: str,
    lines: Sequence[Line],
    requested_at: datetime | None = None,
    return_id: str | None = None,
    actor: Actor | None = None,
) -> ReturnItem:
    """A REQUESTED return of units the order holds and no other return of it holds yet (a customer's words as each
    line's reason). The order must be DELIVERED (OrderConflict otherwise); NotFound for an unknown order."""
    return _new_return(
        order_id, _checked_lines(lines, coded=False), ReturnStatus.REQUESTED, requested_at, return_id, actor, REQUEST
    )


def return_create(
    *, order_id: str, lines: Sequence[Line], return_id: str | None = None, actor: Actor | None = None
) -> ReturnItem:
    """An APPROVED return staff make for the customer: as ``return_request``, but each line's reason is a
    ``ReturnReason`` and the return needs no approval."""
    return _new_return(
        order_id, _checked_lines(lines, coded=True), ReturnStatus.APPROVED, None, return_id, actor, CREATE
    )


def _new_return(
    order_id: str,
    wanted: dict[str, ReturnLine],
    status: ReturnStatus,
    requested_at: datetime | None,
    return_id: str | None,
    actor: Actor | None,
    action: str,
) -> ReturnItem:
    oid = shop_keys.bare(order_id, shop_keys.ORDER)
    rid = keys.return_id(return_id) if return_id else orders.new_id()
    collection = order_collection(oid)
    order = collection.order
    if order.order_status is not OrderStatus.DELIVERED:
        raise OrderConflict(
            oid, order.status, f"order {oid} is {order.status or 'unknown'}; only a delivered one is returned"
        )
    left = returnable(collection)
    for pid, line in wanted.items():
        if pid not in left:
            raise InvalidInput(f"order {oid} holds no product {pid}")
        if line.quantity > left[pid]:
            raise InvalidInput(f"only {max(left[pid], 0)} of product {pid} in order {oid} can still be returned")
    at = requested_at or now()
    item = ReturnItem(
        **keys.return_keys(rid, oid),
        order_id=oid,
        customer_id=order.customer_id,
        status=status.value,
        requested=at,
        approved=at if status is ReturnStatus.APPROVED else None,
        lines=list(wanted.values()),
    )
    tx = Transaction(ReturnsItem, token=request_token())
    tx.check("order", Order, order.pk, order.sk, Order.status == OrderStatus.DELIVERED.value)
    tx.put("return", item, ReturnsItem.pk.does_not_exist())
    audit.record(tx, actor, action=action, order_id=oid, to_status=item.status, detail=about(rid))
    try:
        tx.commit()
    except TransactionCancelled as exc:
        if exc.only_conflicts:
            raise Busy(f"order {oid} is being changed by another request; no return was made, try again") from exc
        if "order" in exc.reasons:
            raise OrderConflict(oid, None, f"order {oid} changed meanwhile; no return was made") from exc
        raise ReturnConflict(rid, None, f"return {rid} already exists") from exc
    return item


# --- status changes --------------------------------------------------------------------------------------------


def _read(rid: str) -> ReturnItem:
    found = access_patterns.return_by_id(return_id=rid, consistent=True)
    if found is None:
        raise NotFound("return", rid)
    return found


Build = Callable[[Transaction, ReturnItem, datetime], tuple[Sequence[Action], str]]
"""Adds a step's own writes, taken at the time given, to its transaction; returns what else the step sets on the
return and its audit detail."""


def _act(rid: str, action: str, build: Build, actor: Actor | None, at: datetime | None = None) -> ReturnItem:
    """Read the return, check ``action`` may be taken from its status, let ``build`` fill the transaction, take the
    step (its time, ``at`` or now, kept in the attribute ``RETURN`` names as its stamp), commit. The return's condition
    failing means someone else moved it first (ReturnConflict, saying what it is now); anything else (contention, a
    stock row or a refunded total that moved) runs it again from the reads."""

    def attempt() -> ReturnItem:
        item = _read(rid)
        step = RETURN.require(action, rid, item.status)
        when = at or now()
        tx = Transaction(ReturnsItem, token=request_token())
        sets, detail = build(tx, item, when)
        stamp = getattr(ReturnItem, str(step.stamp)).set(when)
        RETURN.take(tx, item, action, [*sets, stamp], actor=actor, order_id=item.order_id, detail=about(rid, detail))
        try:
            tx.commit()
        except TransactionCancelled as exc:
            if "return" in exc.failed("ConditionalCheckFailed"):
                current = access_patterns.return_by_id(return_id=rid, consistent=True)
                raise RETURN.lost(rid, current.status if current else None, step.done, absent="gone") from exc
            raise backoff.LostRace from exc
        return item

    return backoff.RACES.rerun(attempt, gave_up=Busy.contended(f"return {rid}"))


def return_approve(*, return_id: str, actor: Actor | None = None) -> ReturnItem:
    """REQUESTED -> APPROVED: the customer may send the units back."""
    return _act(keys.return_id(return_id), "approve", lambda tx, item, at: ((), ""), actor)


def return_reject(*, return_id: str, reason: str, actor: Actor | None = None) -> ReturnItem:
    """REQUESTED -> REJECTED, with staff's ``reason`` (stored as ``Reason``)."""
    why = text_of(reason, what="reason")
    return _act(keys.return_id(return_id), "reject", lambda tx, item, at: ([ReturnItem.reason.set(why)], why), actor)


def _count(value: object, what: str, pid: str, most: int) -> int:
    return orders.whole_number(value, what=f"{what} of {pid}", low=0, high=most)


def counted_lines(item: ReturnItem, counts: Mapping[str, Count], warehouse_id: str) -> list[ReturnLine]:
    """The return's lines with what came back: each line's ``Received`` (absent: its quantity), ``Restocked``
    (absent: all received) and ``WarehouseId`` (absent: ``warehouse_id``); InvalidInput for a count above its bound
    or of a product the return lacks."""
    lines = list(item.lines or [])
    unknown = set(counts) - {line.product_id for line in lines}
    if unknown:
        raise InvalidInput(f"return {item.return_id} holds no product {min(unknown)}")
    counted = []
    for line in lines:
        count = counts.get(line.product_id, Count())
        quantity = line.quantity or 0
        got = quantity if count.received is None else _count(count.received, "received", line.product_id, quantity)
        kept = got if count.restocked is None else _count(count.restocked, "restocked", line.product_id, got)
        where = shop_keys.bare(count.warehouse_id or warehouse_id, shop_keys.WAREHOUSE)
        counted.append(
            ReturnLine(**{**line.attribute_values, "received": got, "restocked": kept, "warehouse_id": where})
        )
    return counted


def return_receive(
    *, return_id: str, warehouse_id: str, counts: Mapping[str, Count] | None = None, actor: Actor | None = None
) -> ReturnItem:
    """APPROVED -> RECEIVED (``counted_lines``), the restocked units added to each line's warehouse's stock in the
    same transaction (``returns.restock``; UnknownWarehouse for a warehouse the shop lacks)."""
    rid = keys.return_id(return_id)
    wid = shop_keys.bare(warehouse_id, shop_keys.WAREHOUSE)

    def build(tx: Transaction, item: ReturnItem, at: datetime) -> tuple[Sequence[Action], str]:
        lines = counted_lines(item, counts or {}, wid)
        units: dict[str, dict[str, int]] = {line.warehouse_id: {} for line in lines}
        for line in lines:
            if line.restocked:
                units[line.warehouse_id][line.product_id] = line.restocked
        for where, restocked in units.items():
            restock.add_restock(tx, restock.read_shelf(where, list(restocked)), restocked)
        sets = [ReturnItem.warehouse_id.set(wid), ReturnItem.lines.set(lines)]
        damaged = sum(line.damaged or 0 for line in lines)
        detail = f"into warehouse {', '.join(units)}" + (f", {damaged} damaged" if damaged else "")
        return sets, detail

    return _act(rid, "receive", build, actor)


@dataclass(frozen=True)
class ReturnedValue:
    """What a return may be refunded without an override: ``lines`` (product id, received units, price paid,
    their value), less ``refunded`` (this return's refunds so far)."""

    lines: tuple[tuple[str, int, Decimal, Decimal], ...]
    refunded: Decimal

    @property
    def value(self) -> Decimal:
        return sum((line[3] for line in self.lines), Decimal(0))

    @property
    def bound(self) -> Decimal:
        return max(self.value - self.refunded, Decimal(0))


def returned_value(item: ReturnItem, collection: OrderCollection | None, money: refunds.Refundable) -> ReturnedValue:
    """The received lines at the prices the order paid (a product the order lacks: worth nothing), and what this
    return was refunded (``money``'s refunds naming it)."""
    prices = {i.product_id: i.price for i in collection.items} if collection is not None else {}
    lines = []
    for line in item.lines or []:
        price = prices.get(line.product_id)
        if line.received and price is not None:
            lines.append((line.product_id, line.received, price, price * line.received))
    refunded = sum((r.amount for r in money.refunds if r.return_id == item.return_id and r.amount), Decimal(0))
    return ReturnedValue(tuple(lines), refunded)


def return_refund(
    *,
    return_id: str,
    amount: Decimal | str,
    reference: str,
    override: str | None = None,
    actor: Actor | None = None,
    at: datetime | None = None,
    notify: bool = False,
) -> ReturnItem:
    """APPROVED or RECEIVED -> REFUNDED: a refund of ``amount`` with the provider's ``reference``, within what the
    order paid less what was refunded (RefundTooLarge: 400, always) and within the return's ``returned_value``
    (RefundAboveReturned: 400) unless ``override`` gives the reason (kept on the refund as ``Override``; who may
    give one is the caller's rule); ``notify``: the customer's notification, in the same transaction."""
    rid = keys.return_id(return_id)
    money = refunds.amount_of(amount)
    ref = refunds.reference_of(reference)
    why = text_of(override, what="reason for the override") if override is not None else None

    def build(tx: Transaction, item: ReturnItem, when: datetime) -> tuple[Sequence[Action], str]:
        collection = order_collection(item.order_id)
        read = refunds.refundable(item.order_id, collection.invoices)
        if money > read.remaining:
            raise RefundTooLarge(read.order_id, money, read.remaining)
        bound = returned_value(item, collection, read).bound
        if why is None and money > bound:
            raise RefundAboveReturned(rid, money, bound)
        customer = collection.order.customer_id
        refund = refunds.add_refund(
            tx, read, money, ref, customer_id=customer, at=when, return_id=rid, override=why, notify=notify
        )
        detail = f"{money:.2f} ({ref})" + (f"; override: {why}" if why else "")
        return [ReturnItem.refund_id.set(refund.refund_id)], detail

    return _act(rid, "refund", build, actor, at)


# --- cancelling a paid order --------------------------------------------------------------------------------


def _refund_what_was_paid(tx: Transaction, collection: OrderCollection, *, actor: Actor | None) -> None:
    money = refunds.refundable(collection.order.order_id, collection.invoices)
    paid_by = sorted({p.transaction_id for i in collection.invoices for p in i.payments if p.transaction_id})
    reference = ", ".join(paid_by)[: refunds.MAX_REFERENCE] or "order cancelled"
    _refund(tx, money, money.remaining, reference, "order cancelled", collection=collection, actor=actor)


def _refund(
    tx: Transaction,
    money: refunds.Refundable,
    amount: Decimal,
    reference: str,
    why: str,
    *,
    collection: OrderCollection,
    actor: Actor | None,
) -> None:
    """The refund (none unless ``amount`` is above 0) an order's cancel or edit makes in its own transaction."""
    if amount <= 0:
        return
    refunds.add_refund(tx, money, amount, reference, customer_id=collection.order.customer_id)
    audit.record(tx, actor, action=refunds.REFUND, order_id=money.order_id, detail=f"{why}: {amount:.2f} ({reference})")


@dataclass(frozen=True)
class CancelPreview:
    """What cancelling one order will do, shown before staff confirm: the order as it is now (None: no such order),
    who placed it, and what the cancel refunds."""

    order_id: str
    order: Order | None
    customer_name: str | None
    refund: Decimal


def cancel_previews(order_ids: Sequence[str], *, workers: int = PREVIEW_WORKERS) -> list[CancelPreview]:
    """``CancelPreview`` of each order, in the order given: per order its collection (one Query), the refunds so
    far (one Query of this table) and its customer (one GetItem), ``workers`` orders at a time."""
    ids = [shop_keys.bare(oid, shop_keys.ORDER) for oid in order_ids]
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(ids)))) as pool:
        return list(pool.map(run_in_context(_cancel_preview), ids))


def _cancel_preview(order_id: str) -> CancelPreview:
    try:
        collection = order_collection(order_id)
    except NotFound:
        return CancelPreview(order_id, None, None, Decimal(0))
    customer = shop_access_patterns.customer_by_id(customer_id=collection.order.customer_id)
    money = refunds.refundable(order_id, collection.invoices)
    return CancelPreview(order_id, collection.order, customer.name if customer else None, money.remaining)


def order_cancel_with_refund(
    *, order_id: str, expected_version: int | None = None, actor: Actor | None = None, reason: str | None = None
) -> Order:
    """The shop's cancel (PENDING -> CANCELLED, stock returned, ``reason`` kept) and, in the same transaction, a
    refund of what the order paid and was not refunded yet (its reference: the payments' transaction ids), audited
    as ``refund``."""
    extra = partial(_refund_what_was_paid, actor=actor)
    return orders.order_cancel(
        order_id=order_id, expected_version=expected_version, actor=actor, reason=reason, extra=extra
    )


# --- editing a paid order ---------------------------------------------------------------------------------------

EDIT_REFERENCE = "order edit"  # the Reference of the refund an edit makes: what was paid above the new total


def _refund_above(tx: Transaction, collection: OrderCollection, total: Decimal, *, actor: Actor | None) -> None:
    money = refunds.refundable(collection.order.order_id, collection.invoices)
    unchecked = replace(money, invoices=())  # the edit's invoice update holds the payments as read
    excess = money.paid - money.refunded - total
    _refund(tx, unchecked, excess, EDIT_REFERENCE, "order edited", collection=collection, actor=actor)


def order_edit_with_refund(**edit: Any) -> Order:
    """The shop's edit (``shop.order_edit.order_edit``, its keyword arguments) and, in the same transaction, a
    refund of what the order paid above its new total (``Reference`` ``order edit``), audited as ``refund``."""
    return order_edit.order_edit(**edit, extra=partial(_refund_above, actor=edit.get("actor")))


# --- a refund outside a return ----------------------------------------------------------------------------------


def order_refund(
    *,
    order_id: str,
    amount: Decimal | str,
    reason: str,
    reference: str,
    actor: Actor | None = None,
    notify: bool = False,
) -> Refund:
    """A refund outside a return (a goodwill gesture, a double charge), within what the order paid less what was
    refunded (RefundTooLarge), with staff's ``reason`` in its audit entry and (``notify``) the customer's
    notification, in one transaction across both tables."""
    oid = shop_keys.bare(order_id, shop_keys.ORDER)
    money = refunds.amount_of(amount)
    why = text_of(reason, what="reason")
    ref = refunds.reference_of(reference)

    def attempt() -> Refund:
        collection = order_collection(oid)
        read = refunds.refundable(oid, collection.invoices)
        tx = Transaction(ReturnsItem, token=request_token())
        refund = refunds.add_refund(tx, read, money, ref, customer_id=collection.order.customer_id, notify=notify)
        audit.record(tx, actor, action=refunds.REFUND, order_id=oid, detail=f"{money:.2f} ({ref}): {why}")
        tx.commit_or_rerun()
        return refund

    return backoff.RACES.rerun(attempt, gave_up=Busy.contended(f"refunding order {oid}"))
