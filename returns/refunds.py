"""What an order can still be refunded, and the writes of one refund (with its audit entry), added to a caller's
transaction. The bound and why the transaction holds it itself: see docs/returns.md, "Refunds within what was paid".

- the refunded total's ``ADD`` is conditioned on it staying within what was paid, so of two refunds racing on one
  order the second one's condition sees the first one's sum;
- each invoice with payments is checked to hold the payments read, so "paid" is what the order holds at commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation

from pynamodb.expressions.operand import Path, Value

from dynamo.paging import all_items
from dynamo.transactions import Transaction
from returns import access_patterns, keys
from returns.errors import RefundTooLarge
from returns.models import CENT, OrderRefunds, Refund, ReturnsItem
from shop import access_patterns as shop_patterns
from shop import notifications
from shop.amounts import plain_amount
from shop.errors import InvalidInput
from shop.models import Invoice
from shop.order_status import paid
from shop.orders import new_id
from shop.timestamps import now

REFUND = "refund"  # the audit trail's name of the action
MAX_AMOUNT = Decimal("1000000000")
MAX_REFERENCE = 200
MAX_REASON = 500
PAYMENTS = ("Detail", "Payments")


@dataclass(frozen=True)
class Refundable:
    """An order's money as read; ``counted`` is its refunded total alone, the invoices' payments are checked at
    commit."""

    order_id: str
    paid: Decimal
    refunded: Decimal
    counted: Decimal
    invoices: tuple[Invoice, ...] = ()
    refunds: tuple[Refund, ...] = ()

    @property
    def remaining(self) -> Decimal:
        return max(self.paid - self.refunded, Decimal(0))

    @property
    def elsewhere(self) -> Decimal:
        """Refunds the total does not count (written by another service straight into the table)."""
        return self.refunded - self.counted


def refundable(order_id: str, invoices: Sequence[Invoice] | None = None) -> Refundable:
    """What ``order_id`` paid (its invoices: one Query of the shop table, unless given) and had refunded (one
    strongly consistent Query of the returns table)."""
    if invoices is None:
        invoices = list(all_items(shop_patterns.invoices_for_order, order_id=order_id))
    total, refunds = access_patterns.money_of_order(order_id=order_id, consistent=True)
    counted = total.refunded if total is not None and total.refunded is not None else Decimal(0)
    summed = sum((r.amount for r in refunds if r.amount is not None), Decimal(0))
    return Refundable(order_id, paid(invoices), max(counted, summed), counted, tuple(invoices), tuple(refunds))


def amount_of(value: object) -> Decimal:
    """A refund's amount as staff typed it: more than 0, at most two decimals; InvalidInput otherwise."""
    if isinstance(value, float | bool) or value is None:
        raise InvalidInput("an amount is a number such as 12.50")
    if isinstance(value, str):
        amount = plain_amount(value)
    else:
        try:
            amount = Decimal(str(value))
        except InvalidOperation as exc:
            raise InvalidInput(f"{value!r} is not an amount (a number such as 12.50)") from exc
    if not amount.is_finite() or amount <= 0:
        raise InvalidInput("a refund is an amount above 0")
    if amount != amount.quantize(CENT):
        raise InvalidInput("an amount has at most two decimals")
    if amount > MAX_AMOUNT:
        raise InvalidInput(f"a refund is at most {MAX_AMOUNT}")
    return amount.quantize(CENT)


def reference_of(value: object) -> str:
    """The payment provider's reference as staff typed it (``text_of``, at most ``MAX_REFERENCE`` characters)."""
    return text_of(value, what="reference", limit=MAX_REFERENCE)


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


def add_refund(
    tx: Transaction,
    money: Refundable,
    amount: Decimal,
    reference: str,
    *,
    customer_id: str,
    at: datetime | None = None,
    return_id: str | None = None,
    override: str | None = None,
    notify: bool = False,
) -> Refund:
    """Add a refund (a new id, dated ``at`` or now) to ``tx``: the refund item, the order's refunded total, the checks
    of its invoices' payments and (``notify``) the customer's notification; the caller adds the audit entry.
    RefundTooLarge when ``amount`` is above what ``money`` says remains."""
    if amount > money.remaining:
        raise RefundTooLarge(money.order_id, amount, money.remaining)
    for invoice in money.invoices:
        detail = (invoice.attributes_as_read() or {}).get(PAYMENTS[0], {})  # as read: the condition compares it whole
        payments = detail.get("M", {}).get(PAYMENTS[1])
        if payments is not None:
            tx.check(
                f"invoice:{invoice.invoice_id}",
                Invoice,
                invoice.pk,
                invoice.sk,
                Path(list(PAYMENTS)) == Value(payments),
            )
    refund = Refund(
        **keys.refund_keys(money.order_id, new_id()),
        amount=amount,
        date=at or now(),
        reference=reference,
        return_id=return_id,
        override=override,
        customer_id=customer_id,
    )
    tx.put(REFUND, refund, ReturnsItem.pk.does_not_exist())
    limit = money.paid - amount - money.elsewhere
    tx.update(
        "refunded",
        OrderRefunds(**keys.refunded_keys(money.order_id)),
        [
            ReturnsItem.entity_type.set(OrderRefunds),  # the item is created by its first refund
            OrderRefunds.refunded.add(amount),
        ],
        OrderRefunds.refunded.does_not_exist() | (OrderRefunds.refunded <= limit),
    )
    if notify:
        notifications.add(tx, money.order_id, notifications.Kind.REFUNDED, detail=f"{amount:.2f}", at=refund.date)
    return refund
