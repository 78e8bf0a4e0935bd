"""Editing a pending order in one TransactWriteItems conditioned on the order's ``Version`` (what it changes:
docs/staff-work.md, "The pages", ``/orders/<oid>/edit/``). A caller's ``extra`` adds its own writes (a refund above
the new total); the invoice's update holds its payments as read, so the extra need not check them again (DynamoDB
takes one action per item in a transaction)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal

from pynamodb.expressions.update import Action

from dynamo import backoff
from dynamo.transactions import Transaction, request_token
from shop import audit, keys, notifications, order_status
from shop.audit import Actor
from shop.editing import MAX_ADDRESS_PART, checked_text
from shop.errors import Busy, InvalidInput
from shop.models import Address, Invoice, Order, OrderItem, ShopItem
from shop.order_builders import PricedLine, build_item
from shop.order_parts import (
    MAX_LINES,
    changeable,
    commit_order_change,
    payments_held,
    pick_warehouse,
    products,
    stock_to_return,
    take_step,
    take_stock,
    whole_number,
)
from shop.order_reads import OrderCollection, order_collection, ship_to, ship_to_fields
from shop.timestamps import format_ts, now

EDIT = "edit"  # the step of ``lifecycle.ORDER``, and the audit trail's name of the action

EditExtra = Callable[[Transaction, OrderCollection, Decimal], None]
"""Adds another service's writes to the edit's transaction, from the order as read and its new total."""


# The ship-to's fields as the edit names them, with the ``Address`` attribute each is kept in.
SHIP_TO = {"street": "Street", "city": "City", "zip": "ZipCode", "country": "Country"}


def typed_ship_to(given: Mapping[str, str | None]) -> Address | None:
    """A created order's ship-to, checked as an edit's; None when none is given (the customer's address)."""
    fields = _checked({n: given.get(n) for n in SHIP_TO})
    return _address(fields) if any(fields.values()) else None


def _new_ship_to(order: Order, given: Mapping[str, str | None]) -> tuple[Address, list[audit.Changed]]:
    """The ship-to with the ``given`` fields changed (the others as they are), and what changed."""
    unknown = sorted(set(given) - set(SHIP_TO))
    if unknown:
        raise InvalidInput(f"{unknown[0]}: a ship-to has a {', '.join(SHIP_TO)} only")
    before = ship_to_fields(ship_to(order))
    after = before | _checked(given)
    path = Order.ship_to.attr_name + "."
    changes = [audit.Changed(path + SHIP_TO[n], before[n], after[n]) for n in SHIP_TO if after[n] != before[n]]
    return _address(after), changes


def _checked(given: Mapping[str, str | None]) -> dict[str, str | None]:
    """Each ship-to field given, as typed less its outer spaces (empty: absent), within its limit."""
    return {n: checked_text((v or "").strip(), what=n, limit=MAX_ADDRESS_PART) for n, v in given.items()}


def _address(fields: Mapping[str, str | None]) -> Address:
    return Address(street=fields["street"], city=fields["city"], zip_code=fields["zip"], country=fields["country"])


def _quantity(pid: str, n: object) -> int:
    return whole_number(n, what=f"quantity-{pid}", low=0)


def order_edit(
    *,
    order_id: str,
    expected_version: int | None,
    quantities: Mapping[str, int],
    add_product: str | None = None,
    add_quantity: int | None = None,
    address: Mapping[str, str | None] | None = None,
    actor: Actor | None = None,
    notify: bool = False,
    extra: EditExtra | None = None,
) -> Order:
    """Apply the edit (``address``: ``SHIP_TO`` fields); InvalidInput, OutOfStock, OrderConflict (stale), Busy."""
    oid = keys.bare(order_id, keys.ORDER)
    wanted = {keys.bare(pid, keys.PRODUCT): _quantity(pid, n) for pid, n in quantities.items()}
    added = keys.bare(add_product, keys.PRODUCT) if add_product else None
    if added is not None and (add_quantity is None or _quantity(added, add_quantity) < 1):
        raise InvalidInput("add_quantity: a new line needs a quantity of 1 or more")

    def attempt() -> Order:
        collection = order_collection(oid)
        order = changeable(collection, "edit", expected_version)
        lines = {item.product_id: item for item in collection.items}
        unknown = sorted(set(wanted) - set(lines))
        if unknown:
            raise InvalidInput(f"quantity-{unknown[0]}: order {oid} has no line of product {unknown[0]}")
        if added is not None and added in lines:
            raise InvalidInput(f"add_product: order {oid} has a line of product {added} already: change its quantity")
        sent = order_status.shipped(collection)
        new = {pid: wanted.get(pid, item.quantity) for pid, item in lines.items()}
        for pid, n in new.items():
            if n < sent.get(pid, 0):
                raise InvalidInput(f"quantity-{pid}: {sent[pid]} of product {pid} have shipped already")
        if not any(new.values()) and added is None:
            raise InvalidInput("an order keeps at least one line: cancel it instead")
        if len([n for n in new.values() if n]) + (added is not None) > MAX_LINES:
            raise InvalidInput(f"an order holds at most {MAX_LINES} different products")
        tx = Transaction(ShopItem, token=request_token())
        stock = {item.product_id: row for item, row in stock_to_return(collection.items)}
        changes: list[audit.Changed] = []
        for pid, item in lines.items():
            diff = new[pid] - item.quantity
            if diff == 0:
                continue
            changes.append(audit.Changed(f"Quantity of {pid}", str(item.quantity), str(new[pid])))
            row = stock.get(pid)
            if row is not None:
                if row.quantity - diff < 0:
                    raise InvalidInput(f"quantity-{pid}: warehouse {row.warehouse_id} holds {row.quantity} more only")
                take_stock(tx, pid, row, diff)
            if new[pid] == 0:
                tx.delete(f"item:{pid}", item, OrderItem.quantity == item.quantity)
            else:
                tx.update(f"item:{pid}", item, [OrderItem.quantity.set(new[pid])], OrderItem.quantity == item.quantity)
        total = sum(((item.price or Decimal(0)) * new[pid] for pid, item in lines.items()), Decimal(0))
        count = sum(new.values())
        if added is not None and add_quantity is not None:
            product = products([added])[added]
            row = pick_warehouse(added, add_quantity)
            line = PricedLine.of(product, add_quantity, row.warehouse_id)
            changes.append(audit.Changed(f"Quantity of {added}", None, str(add_quantity)))
            item = build_item(oid, order.customer_id, format_ts(order.date or now()), line)
            tx.put(f"item:{added}", item, ShopItem.pk.does_not_exist())
            take_stock(tx, added, row, add_quantity)
            total += line.price * add_quantity
            count += add_quantity
        sets: list[Action] = [Order.total.set(total), Order.item_count.set(count)]
        if address:
            new_address, moved = _new_ship_to(order, address)
            if moved:
                changes += moved
                sets.append(Order.ship_to.set(new_address))
        if not changes:
            raise InvalidInput(f"order {oid}: nothing to change")
        if total != order.total:
            changes.append(audit.Changed(Order.total.attr_name, f"{order.total or 0:.2f}", f"{total:.2f}"))
        take_step(tx, order, EDIT, sets, actor=actor, changes=changes)
        for invoice in collection.invoices[:1]:  # its payments held as read: what was paid is what the edit saw
            tx.update("invoice", invoice, [Invoice.amount.set(total)], payments_held(invoice))
        if notify and total != order.total:
            notifications.add(tx, oid, notifications.Kind.EDITED, detail=f"{total:.2f}")
        if extra is not None:
            extra(tx, collection, total)
        commit_order_change(tx, oid, "edited")
        return order

    return backoff.RACES.rerun(attempt, gave_up=Busy.contended(f"editing order {oid}"))
