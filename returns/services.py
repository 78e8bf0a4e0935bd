"""Domain writes of returns and refunds. Each is one TransactWriteItems with conditions (``shop.orders``' way):

- ``return_request``: a REQUESTED return of some units of a delivered order (conditioned on the order still being
  DELIVERED in the shop table, and on the return's key being new);
- ``return_approve`` (REQUESTED -> APPROVED), ``return_reject`` (REQUESTED -> REJECTED, with staff's reason);
- ``return_receive`` (APPROVED -> RECEIVED): each line's units added to that product's stock in the warehouse, in
  the shop table, in the same transaction, conditioned on both the return's status and the stock rows read
  (``returns.restock``);
- ``return_refund`` (RECEIVED -> REFUNDED): a refund of an amount staff type, with the payment provider's
  reference, within what the order paid less what was refunded (``returns.refunds``: held by a condition);
- ``order_cancel_with_refund``: the shop's cancel (``shop.orders.order_cancel``) with, in its own transaction, the
  refund of what the order paid.

Each status change is conditioned on the status read, so an action that no longer applies changes nothing:
``ReturnConflict`` (the page answers 409). Given an ``actor``, each writes its audit entry in the same transaction,
in the order's partition of the shop table (``shop.audit``), so the activity list shows it with the order id.
Conditions that fail on anything else (stock moved, another refund landed) run the action again from its reads.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import partial

from pynamodb.expressions.update import Action

from dynamo.instrumentation import run_in_context
from dynamo.paging import all_items
from dynamo.transactions import Transaction, TransactionCancelled
from returns import access_patterns, keys, refunds, restock
from returns.errors import ReturnConflict
from returns.keys import ReturnStatus
from returns.models import ReturnItem, ReturnLine, ReturnsItem
from shop import access_patterns as shop_access_patterns
from shop import audit, orders
from shop import keys as shop_keys
from shop.audit import Actor
from shop.errors import Busy, InvalidInput, NotFound, OrderConflict
from shop.keys import OrderStatus
from shop.models import Order
from shop.order_reads import OrderCollection, order_collection
from shop.retries import Retry, request_token, retrying
from shop.timestamps import now

# Actions as the audit trail and the activity list name them.
REQUEST, APPROVE, REJECT, RECEIVE = "return-request", "return-approve", "return-reject", "return-receive"
REFUND = refunds.REFUND
MAX_LINES = orders.MAX_LINES
MAX_QUANTITY = orders.MAX_QUANTITY
MAX_REASON = 500
PREVIEW_WORKERS = 8  # orders read at once for a confirmation


@dataclass(frozen=True)
class Line:
    """A line of a return request: a product of the order, how many units, and why."""

    product_id: str
    quantity: int
    reason: str


def new_id() -> str:
    return secrets.token_hex(6)


def text_of(value: object, *, what: str, limit: int = MAX_REASON) -> str:
    """Free text staff or customers type: trimmed, 1 to ``limit`` printable characters; InvalidInput otherwise."""
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        raise InvalidInput(f"a {what} is required")
    if len(text) > limit:
        raise InvalidInput(f"a {what} is at most {limit} characters (this one has {len(text)})")
    if not text.isprintable():
        raise InvalidInput(f"a {what} holds no line breaks or control characters")
    return text


def about(rid: str, text: str = "") -> str:
    """The ``Detail`` of a return's audit entry: ``return <rid>`` then what happened (``history_of`` finds them)."""
    return f"return {rid}" + (f": {text}" if text else "")


def is_about(detail: str | None, rid: str) -> bool:
    """Whether an audit entry's ``Detail`` is about return ``rid`` (``about``'s text)."""
    head = about(rid)
    return detail is not None and (detail == head or detail.startswith(head + ": "))


# --- request ---------------------------------------------------------------------------------------------------


def _checked_lines(lines: Sequence[Line]) -> dict[str, tuple[int, str]]:
    """Product id -> (units, reason); a product twice has its units added and its first reason kept."""
    if not lines:
        raise InvalidInput("a return needs at least one line")
    merged: dict[str, tuple[int, str]] = {}
    for line in lines:
        pid = shop_keys.bare(line.product_id, shop_keys.PRODUCT)
        quantity = line.quantity
        if isinstance(quantity, bool) or not isinstance(quantity, int) or not 0 < quantity <= MAX_QUANTITY:
            raise InvalidInput(f"the quantity of {pid} must be a whole number from 1 to {MAX_QUANTITY}")
        reason = text_of(line.reason, what="reason")
        units, first = merged.get(pid, (0, reason))
        merged[pid] = (units + quantity, first)
    if len(merged) > MAX_LINES:
        raise InvalidInput(f"a return holds at most {MAX_LINES} different products")
    return merged


def _returnable(collection: OrderCollection) -> dict[str, int]:
    """Units of each product of the order not yet in one of its returns (rejected ones aside)."""
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
    """A REQUESTED return of units the order holds and no other return of it holds yet. The order must be
    DELIVERED (OrderConflict otherwise); NotFound for an unknown order."""
    oid = shop_keys.bare(order_id, shop_keys.ORDER)
    rid = keys.return_id(return_id) if return_id else new_id()
    wanted = _checked_lines(lines)
    collection = order_collection(oid)
    order = collection.order
    if order.order_status is not OrderStatus.DELIVERED:
        raise OrderConflict(
            oid, order.status, f"order {oid} is {order.status or 'unknown'}; only a delivered one is returned"
        )
    left = _returnable(collection)
    for pid, (units, _) in wanted.items():
        if pid not in left:
            raise InvalidInput(f"order {oid} holds no product {pid}")
        if units > left[pid]:
            raise InvalidInput(f"only {max(left[pid], 0)} of product {pid} in order {oid} can still be returned")
    item = ReturnItem(
        **keys.return_keys(rid, oid),
        order_id=oid,
        customer_id=order.customer_id,
        status=ReturnStatus.REQUESTED.value,
        requested=requested_at or now(),
        lines=[ReturnLine(product_id=pid, quantity=units, reason=why) for pid, (units, why) in wanted.items()],
    )
    tx = Transaction(ReturnsItem, token=request_token())
    tx.check("order", Order, order.pk, order.sk, Order.status == OrderStatus.DELIVERED.value)
    tx.put("return", item, ReturnsItem.pk.does_not_exist())
    audit.record(tx, actor, action=REQUEST, order_id=oid, to_status=item.status, detail=about(rid))
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


def _require(item: ReturnItem, allowed: ReturnStatus, done: str) -> None:
    if item.return_status is not allowed:
        raise ReturnConflict(
            item.return_id,
            item.status,
            f"return {item.return_id} is {item.status or 'unknown'}; only a {allowed.value} return can be {done}",
        )


def _status_update(
    tx: Transaction,
    item: ReturnItem,
    new: ReturnStatus,
    *,
    action: str,
    actor: Actor | None,
    sets: Sequence[Action] = (),
    detail: str = "",
) -> None:
    """The conditional status change and, for a staff change, its audit entry (same transaction)."""
    old = item.status
    tx.update("return", item, [ReturnItem.status.set(new.value), *sets], ReturnItem.status == old)
    audit.record(
        tx,
        actor,
        action=action,
        order_id=item.order_id,
        from_status=old,
        to_status=new.value,
        detail=about(item.return_id, detail),
    )


def _commit(tx: Transaction, rid: str, done: str) -> None:
    """Commit; the return's condition failing means someone else moved it first (ReturnConflict, saying what it
    is now); anything else (contention, a stock row or a refunded total that moved) runs the action again."""
    try:
        tx.commit()
    except TransactionCancelled as exc:
        if "return" in exc.failed("ConditionalCheckFailed"):
            current = access_patterns.return_by_id(return_id=rid, consistent=True)
            status = current.status if current is not None else None
            raise ReturnConflict(
                rid, status, f"return {rid} changed while being {done} (now {status or 'gone'}); nothing was done"
            ) from exc
        raise Retry from exc


def _act(rid: str, allowed: ReturnStatus, done: str, build: Callable[[Transaction, ReturnItem], None]) -> ReturnItem:
    """Read the return, check its status, let ``build`` fill the transaction, commit; again from the reads when a
    race other than the return's own was lost."""

    def attempt() -> ReturnItem:
        item = _read(rid)
        _require(item, allowed, done)
        tx = Transaction(ReturnsItem, token=request_token())
        build(tx, item)
        _commit(tx, rid, done)
        return item

    return retrying(attempt, what=f"return {rid}")


def return_approve(*, return_id: str, actor: Actor | None = None) -> ReturnItem:
    """REQUESTED -> APPROVED: the customer may send the units back."""
    rid = keys.return_id(return_id)
    return _act(
        rid,
        ReturnStatus.REQUESTED,
        "approved",
        lambda tx, item: _status_update(tx, item, ReturnStatus.APPROVED, action=APPROVE, actor=actor),
    )


def return_reject(*, return_id: str, reason: str, actor: Actor | None = None) -> ReturnItem:
    """REQUESTED -> REJECTED, with staff's ``reason`` (stored as ``Reason``)."""
    rid = keys.return_id(return_id)
    why = text_of(reason, what="reason")
    return _act(
        rid,
        ReturnStatus.REQUESTED,
        "rejected",
        lambda tx, item: _status_update(
            tx, item, ReturnStatus.REJECTED, action=REJECT, actor=actor, sets=[ReturnItem.reason.set(why)], detail=why
        ),
    )


def return_receive(*, return_id: str, warehouse_id: str, actor: Actor | None = None) -> ReturnItem:
    """APPROVED -> RECEIVED into ``warehouse_id``: each line's units added to the product's stock there, in the
    same transaction (UnknownWarehouse for a warehouse the shop lacks)."""
    rid = keys.return_id(return_id)
    wid = shop_keys.bare(warehouse_id, shop_keys.WAREHOUSE)

    def build(tx: Transaction, item: ReturnItem) -> None:
        units: dict[str, int] = {}
        for line in item.lines or []:
            units[line.product_id] = units.get(line.product_id, 0) + (line.quantity or 0)
        restock.add_restock(tx, restock.read_shelf(wid, list(units)), units)
        sets = [ReturnItem.warehouse_id.set(wid)]
        _status_update(
            tx, item, ReturnStatus.RECEIVED, action=RECEIVE, actor=actor, sets=sets, detail=f"into warehouse {wid}"
        )

    return _act(rid, ReturnStatus.APPROVED, "received", build)


def return_refund(
    *, return_id: str, amount: Decimal | str, reference: str, actor: Actor | None = None, at: datetime | None = None
) -> ReturnItem:
    """RECEIVED -> REFUNDED: a refund of ``amount`` with the provider's ``reference``, within what the order paid
    less what was refunded (RefundTooLarge: 400)."""
    rid = keys.return_id(return_id)
    money = refunds.amount_of(amount)
    ref = refunds.reference_of(reference)

    def build(tx: Transaction, item: ReturnItem) -> None:
        fid = new_id()
        refunds.add_refund(
            tx,
            refunds.refundable(item.order_id),
            amount=money,
            reference=ref,
            refund_id=fid,
            at=at or now(),
            return_id=rid,
        )
        sets = [ReturnItem.refund_id.set(fid)]
        _status_update(
            tx, item, ReturnStatus.REFUNDED, action=REFUND, actor=actor, sets=sets, detail=f"{money:.2f} ({ref})"
        )

    return _act(rid, ReturnStatus.RECEIVED, "refunded", build)


# --- cancelling a paid order --------------------------------------------------------------------------------


def _refund_what_was_paid(tx: Transaction, collection: OrderCollection, *, actor: Actor | None, at: datetime) -> None:
    money = refunds.refundable(collection.order.order_id, collection.invoices)
    if money.remaining <= 0:
        return
    paid_by = sorted({p.transaction_id for i in collection.invoices for p in i.payments if p.transaction_id})
    reference = ", ".join(paid_by)[: refunds.MAX_REFERENCE] or "order cancelled"
    refunds.add_refund(tx, money, amount=money.remaining, reference=reference, refund_id=new_id(), at=at)
    detail = f"order cancelled: {money.remaining:.2f} ({reference})"
    audit.record(tx, actor, action=REFUND, order_id=money.order_id, detail=detail)


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
    if not ids:
        return []
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(ids)))) as pool:
        return list(pool.map(run_in_context(_cancel_preview), ids))


def _cancel_preview(order_id: str) -> CancelPreview:
    try:
        collection = order_collection(order_id)
    except NotFound:
        return CancelPreview(order_id, None, None, Decimal(0))
    customer = shop_access_patterns.customer_by_id(customer_id=collection.order.customer_id)
    money = refunds.refundable(order_id, collection.invoices)
    refund = max(money.remaining, Decimal(0))
    return CancelPreview(order_id, collection.order, customer.name if customer else None, refund)


def order_cancel_with_refund(
    *, order_id: str, expected_version: int | None = None, actor: Actor | None = None, reason: str | None = None
) -> Order:
    """The shop's cancel (PENDING -> CANCELLED, stock returned, ``reason`` kept) and, in the same transaction, a
    refund of what the order paid and was not refunded yet (its reference: the payments' transaction ids), audited
    as ``refund``."""
    extra = partial(_refund_what_was_paid, actor=actor, at=now())
    return orders.order_cancel(
        order_id=order_id, expected_version=expected_version, actor=actor, reason=reason, extra=extra
    )
