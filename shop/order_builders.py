"""What an order, its items, invoice, payments and shipments look like: pure builders, no I/O, through which
placing, shipping and seeding all build.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from shop import keys
from shop.attributes import to_decimal
from shop.delivery import DELIVERY_DAYS, delivery_date_for
from shop.errors import InvalidInput
from shop.keys import OrderStatus
from shop.models import Address, Invoice, InvoiceDetail, Order, OrderItem, Payment, Product, Shipment, ShipmentItem
from shop.timestamps import format_ts

SHIPMENT_TYPES = tuple(DELIVERY_DAYS)


@dataclass(frozen=True)
class OrderLine:
    """A line to order: ``price`` overrides the list price, ``warehouse_id`` names where its stock comes from."""

    product_id: str
    quantity: int
    price: Decimal | None = None
    warehouse_id: str | None = None


@dataclass(frozen=True)
class PaymentSpec:
    type: str
    amount: Decimal | str
    transaction_id: str | None = None
    data: str | None = None


@dataclass(frozen=True)
class PricedLine:
    """An order line with what placing it decided: the unit price and the warehouse it is taken from."""

    product_id: str
    quantity: int
    price: Decimal
    product_name: str | None = None
    warehouse_id: str | None = None
    category: str | None = None  # the product's, copied when the order is placed

    @classmethod
    def of(
        cls, product: Product, quantity: int, warehouse_id: str | None = None, price: Decimal | None = None
    ) -> PricedLine:
        """A line of ``product`` at its list price (or ``price``), with its name and category as they are now."""
        unit = (product.price or Decimal(0)) if price is None else price
        return cls(product.product_id, quantity, unit, product.name, warehouse_id, product.category)


def build_item(order_id: str, customer_id: str, when: str, line: PricedLine) -> OrderItem:
    """An order item (GSI1 by product and date, GSI2 by customer and date)."""
    return OrderItem(
        **keys.order_item_keys(order_id, line.product_id, customer_id, when),
        quantity=line.quantity,
        price=line.price,
        product_name=line.product_name,
        warehouse_id=line.warehouse_id,
        category=line.category,
    )


def build_placement(
    *,
    order_id: str,
    invoice_id: str,
    customer_id: str,
    lines: Sequence[PricedLine],
    payments: Sequence[Payment],
    placed_at: datetime,
    status: OrderStatus = OrderStatus.PENDING,
    delivery_date: str | None = None,
) -> tuple[Order, list[OrderItem], Invoice]:
    """The order (``DeliveryDate`` by default standard shipping's), its items and the invoice with its payments."""
    when = format_ts(placed_at)
    total = sum((line.price * line.quantity for line in lines), Decimal(0))
    order = Order(
        **keys.order_keys(order_id, customer_id),
        date=placed_at,
        status=status.value,
        total=total,
        item_count=sum(line.quantity for line in lines),
        delivery_date=delivery_date or delivery_date_for(placed_at),
    )
    items = [build_item(order_id, customer_id, when, line) for line in lines]
    invoice = Invoice(
        **keys.invoice_keys(order_id, invoice_id, customer_id, when),
        amount=total,
        date=placed_at,
        detail=InvoiceDetail(payments=list(payments)),
    )
    return order, items, invoice


def build_shipments(
    *,
    order: Order,
    items: Sequence[OrderItem],
    shipped_at: datetime,
    shipment_type: str,
    address: Address | None,
    first_number: int = 1,
    carrier: str | None = None,
    tracking_number: str | None = None,
    warehouse_tracking: Mapping[str, str | None] | None = None,
    quantities: Mapping[str, int] | None = None,
) -> list[Shipment | ShipmentItem]:
    """One shipment per warehouse the items come from (``sh#<oid>-<n>``, with its warehouse's tracking number
    from ``warehouse_tracking``, else ``tracking_number``: each parcel has its own) and a shipment item per order
    item of ``quantities[product id]`` units (a line without one ships nothing; None: every line whole)."""
    own = warehouse_tracking or {}
    units = quantities if quantities is not None else {item.product_id: item.quantity for item in items}
    by_warehouse: dict[str | None, list[OrderItem]] = {}
    for item in items:
        if units.get(item.product_id, 0) > 0:
            by_warehouse.setdefault(item.warehouse_id, []).append(item)
    built: list[Shipment | ShipmentItem] = []
    groups = sorted(by_warehouse.items(), key=lambda kv: kv[0] or "")
    for n, (warehouse_id, group) in enumerate(groups, first_number):
        sid = f"{order.order_id}-{n}"
        shipment = Shipment(
            **keys.shipment_keys(order.order_id, sid, warehouse_id),
            type=shipment_type,
            date=shipped_at,
            warehouse_id=warehouse_id,
            address=address,
            carrier=carrier,
            tracking_number=own.get(warehouse_id or "") or tracking_number,
        )
        built.append(shipment)
        built += [
            ShipmentItem(
                **keys.shipment_item_keys(order.order_id, sid, item.product_id), quantity=units[item.product_id]
            )
            for item in group
        ]
    return built


def build_payments(specs: Sequence[PaymentSpec] | None, total: Decimal) -> list[Payment]:
    """The invoice's payments: None, a card payment of the total; ``[]``, none (paid later); else those given,
    which must add up to the total."""
    if specs is None:
        return [Payment(type="Card", amount=total, transaction_id="txn_" + secrets.token_hex(8))]
    if not specs:
        return []
    payments = []
    for spec in specs:
        amount = to_decimal(spec.amount, what="payment amount")
        if amount <= 0:
            raise InvalidInput("a payment amount must be positive")
        if not spec.type.strip():
            raise InvalidInput("a payment needs a type (e.g. GiftCard, MasterCard)")
        payments.append(
            Payment(type=spec.type.strip(), amount=amount, data=spec.data, transaction_id=spec.transaction_id)
        )
    paid = sum((p.amount for p in payments), Decimal(0))
    if paid != total:
        raise InvalidInput(f"payments add up to {paid}, the order totals {total}")
    return payments
