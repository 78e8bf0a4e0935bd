"""A payment staff take for an order (by phone, bank transfer): one more entry of its invoice's ``Detail.Payments``,
up to what it still owes, with its audit entry. ``Detail`` is written whole, conditioned on being as read, so two
payments racing never add up to more than it owes: the second runs again from its reads."""

from __future__ import annotations

from decimal import Decimal

from dynamo import backoff
from dynamo.transactions import Transaction, request_token
from shop import audit, keys, tracking
from shop.amounts import plain_amount
from shop.audit import Actor
from shop.errors import Busy, InvalidInput, OrderConflict
from shop.keys import OrderStatus
from shop.models import Invoice, InvoiceDetail, Payment, ShopItem
from shop.order_parts import payments_held
from shop.order_reads import order_collection
from shop.order_status import CENT, money, paid

PAYMENT = "payment"  # the audit trail's name of the action
MANUAL = "Manual"  # the Type of a payment staff took: the timeline names who took it from its audit entry


def amount_of(text: str, *, what: str) -> Decimal:
    """An amount staff typed: a plain decimal above 0 with at most two decimals."""
    amount = plain_amount(text)
    if amount <= 0:
        raise InvalidInput(f"a {what} is an amount above 0")
    return amount.quantize(CENT)


def order_pay(*, order_id: str, amount: Decimal | str, reference: str, actor: Actor | None = None) -> Invoice:
    """Add a manual payment to the invoice: InvalidInput above what is due; OrderConflict on a cancelled order."""
    oid = keys.bare(order_id, keys.ORDER)
    value = amount_of(str(amount), what="payment")
    ref = tracking.reference(reference, what="reference")
    if ref is None:
        raise InvalidInput("a payment needs its reference (the bank's or the provider's)")

    def attempt() -> Invoice:
        collection = order_collection(oid)
        order = collection.order
        if order.order_status is OrderStatus.CANCELLED or not collection.invoices:
            raise OrderConflict(oid, order.status, f"order {oid} is {order.status or 'unknown'}: it takes no payment")
        total = order.total or Decimal(0)
        due = max(total - paid(collection.invoices), Decimal(0))
        if value > due:
            raise InvalidInput(f"a payment is at most what is due ({money(due)})")
        invoice = collection.invoices[0]
        new = Payment(type=MANUAL, amount=value, transaction_id=ref)
        tx = Transaction(ShopItem, token=request_token())
        new_detail = InvoiceDetail(payments=[*invoice.payments, new])
        tx.update("invoice", invoice, [Invoice.detail.set(new_detail)], payments_held(invoice))
        audit.record(tx, actor, action=PAYMENT, order_id=oid, detail=f"{money(value)} ({ref})")
        tx.commit_or_rerun()
        return invoice

    return backoff.RACES.rerun(attempt, gave_up=Busy.contended(f"taking a payment for order {oid}"))
