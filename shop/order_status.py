"""An order's payment and fulfilment status, derived from what it holds (never stored, so never stale): the one
place the order page, its JSON and the money actions read them from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from shop.keys import SHIPPED_WHOLE
from shop.models import Invoice, OrderItem
from shop.order_reads import OrderCollection

CENT = Decimal("0.01")


class Words(StrEnum):
    @property
    def words(self) -> str:
        return self.value.replace("_", " ").capitalize()


class PaymentStatus(Words):
    PAID = "paid"
    PARTIALLY_PAID = "partially_paid"
    UNPAID = "unpaid"
    PARTIALLY_REFUNDED = "partially_refunded"
    REFUNDED = "refunded"


class FulfilmentStatus(Words):
    UNFULFILLED = "unfulfilled"
    PARTIALLY_FULFILLED = "partially_fulfilled"
    FULFILLED = "fulfilled"


def paid(invoices: Sequence[Invoice]) -> Decimal:
    return sum((p.amount for invoice in invoices for p in invoice.payments if p.amount is not None), Decimal(0))


def units_shipped(status: str | None, ordered: Mapping[str, int], sent: Mapping[str, int]) -> dict[str, int]:
    """Units shipped of each line, from those its shipment items hold (``sent``): all once the order is shipped
    or delivered (older shipments may lack their items), never more than the line holds."""
    if status in SHIPPED_WHOLE:
        return dict(ordered)
    return {pid: min(sent.get(pid, 0), n) for pid, n in ordered.items()}


def shipped(collection: OrderCollection) -> dict[str, int]:
    """Units shipped of each line of the order as read (``units_shipped``)."""
    sent: dict[str, int] = {}
    for part in collection.shipment_items:
        if part.product_id:
            sent[part.product_id] = sent.get(part.product_id, 0) + (part.quantity or 0)
    return units_shipped(collection.order.status, ordered(collection.items), sent)


def ordered(items: Sequence[OrderItem]) -> dict[str, int]:
    return {item.product_id: item.quantity for item in items}


@dataclass(frozen=True)
class OrderState:
    """An order's money and shipping (the admin view's without ``lines``); ``refunded`` is the returns table's."""

    total: Decimal
    paid: Decimal
    refunded: Decimal
    ordered: dict[str, int]  # units of each line, by product id
    shipped: dict[str, int]
    lines: tuple[OrderItem, ...] = ()

    @property
    def left(self) -> int:
        """Units still to ship."""
        return sum(self.ordered.values()) - sum(self.shipped.values())

    @property
    def due(self) -> Decimal:
        return max(self.total - self.paid, Decimal(0))

    @property
    def refundable(self) -> Decimal:
        return max(self.paid - self.refunded, Decimal(0))

    @property
    def payment_status(self) -> PaymentStatus:
        if self.refunded > 0:
            return PaymentStatus.REFUNDED if self.refunded >= self.paid else PaymentStatus.PARTIALLY_REFUNDED
        if self.paid <= 0:
            return PaymentStatus.UNPAID
        return PaymentStatus.PAID if self.paid >= self.total else PaymentStatus.PARTIALLY_PAID

    @property
    def fulfilment_status(self) -> FulfilmentStatus:
        sent = sum(self.shipped.values())
        if sent == 0:
            return FulfilmentStatus.UNFULFILLED
        whole = all(self.shipped.get(pid, 0) >= n for pid, n in self.ordered.items())
        return FulfilmentStatus.FULFILLED if whole else FulfilmentStatus.PARTIALLY_FULFILLED


def order_state(collection: OrderCollection, refunded: Decimal) -> OrderState:
    order = collection.order
    total = order.total if order.total is not None else sum((i.line_total or 0 for i in collection.items), Decimal(0))
    sent, items = shipped(collection), tuple(collection.items)
    return OrderState(Decimal(total), paid(collection.invoices), refunded, ordered(items), sent, items)


def money(amount: Decimal) -> str:
    """Two decimals, as the JSON and the forms show amounts."""
    return f"{amount.quantize(CENT):f}"


def as_json(collection: OrderCollection, state: OrderState) -> dict[str, object]:
    """The order as ``GET /orders/<oid>/?format=json`` gives it."""
    return {
        "order_id": collection.order.order_id,
        "status": collection.order.status,
        "payment_status": state.payment_status.value,
        "fulfilment_status": state.fulfilment_status.value,
        "total": money(state.total),
        "paid": money(state.paid),
        "refunded": money(state.refunded),
        "due": money(state.due),
        "lines": [
            {
                "product_id": line.product_id,
                "quantity": line.quantity,
                "shipped": state.shipped.get(line.product_id, 0),
                "price": money(line.price) if line.price is not None else None,
            }
            for line in state.lines
        ],
    }
