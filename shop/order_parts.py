"""What the order writes share (placing, status changes, edits): the products and stock a change reads, the stock
it moves, and the check that an order may take a step at the version a page showed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pynamodb.expressions.condition import Condition
from pynamodb.expressions.operand import Path, Value
from pynamodb.expressions.update import Action

from dynamo import backoff
from dynamo.paging import all_items
from dynamo.transactions import Transaction, TransactionCancelled
from shop import access_patterns, keys
from shop.audit import Actor
from shop.errors import InvalidInput, NotFound, OrderConflict, OutOfStock
from shop.lifecycle import ORDER
from shop.models import Inventory, Invoice, Order, OrderItem, Product
from shop.order_reads import OrderCollection, items_by_key, order_collection

MAX_LINES = 25  # 2 writes a line + 3: well inside DynamoDB's 100 operations per transaction
MAX_QUANTITY = 10_000


def whole_number(value: object, *, what: str, low: int = 1, high: int = MAX_QUANTITY) -> int:
    """``value`` when it is a whole number from ``low`` to ``high``; InvalidInput naming ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{what} must be a whole number from {low} to {high}")
    return value


def products(product_ids: Sequence[str], priced: frozenset[str] = frozenset()) -> dict[str, Product]:
    """The products by id; NotFound, or InvalidInput for one without a price unless its line gives one."""
    found: dict[str, Product] = {}
    for pid, item in zip(product_ids, items_by_key([(keys.product(p),) * 2 for p in product_ids]), strict=True):
        if not isinstance(item, Product):
            raise NotFound("product", pid)
        if item.price is None and pid not in priced:
            raise InvalidInput(f"product {pid} has no price and cannot be ordered")
        found[pid] = item
    return found


def pick_warehouse(product_id: str, quantity: int, warehouse_id: str | None = None) -> Inventory:
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


def stock_to_return(items: list[OrderItem]) -> list[tuple[OrderItem, Inventory]]:
    """Each item with the stock record it was taken from (BatchGetItem); none when that is unknown or gone."""
    taken = [i for i in items if i.warehouse_id]
    rows = items_by_key([(i.sk, keys.with_prefix(keys.WAREHOUSE, str(i.warehouse_id))) for i in taken])
    return [(item, row) for item, row in zip(taken, rows, strict=True) if isinstance(row, Inventory)]


def take_step(
    tx: Transaction, order: Order, action: str, sets: Sequence[Action] = (), *, actor: Actor | None, **entry: Any
) -> None:
    """``action``'s change with its audit entry; PynamoDB conditions it on the ``Version`` read and increments it."""
    ORDER.take(
        tx, order, action, sets, actor=actor, order_id=order.order_id, order_version=(order.version or 0) + 1, **entry
    )


def take_stock(tx: Transaction, label: str, row: Inventory, units: int) -> None:
    """``units`` out of the stock record (a negative number puts them back), conditioned on the level read."""
    tx.update(f"stock:{label}", row, [Inventory.quantity.set(row.quantity - units)], Inventory.quantity == row.quantity)


def changeable(collection: OrderCollection, action: str, expected_version: int | None) -> Order:
    """The order, if ``action`` may be taken from its status at the version the page showed; else OrderConflict."""
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


def payments_held(invoice: Invoice) -> Condition:
    """The invoice's ``Detail`` (its payments) is still as read, compared as DynamoDB returned it: a member the
    model does not declare cannot make the condition fail on every attempt."""
    name = Invoice.detail.attr_name
    read = (invoice.attributes_as_read() or {}).get(name)
    return Path([name]) == Value(read) if read else Invoice.detail.does_not_exist()


def commit_order_change(tx: Transaction, order_id: str, done: str) -> None:
    """Commit; the order's condition failing is a conflict (saying what it is now), any other refusal a lost race
    on what the change read (``backoff.RACES`` runs it again)."""
    try:
        tx.commit()
    except TransactionCancelled as exc:
        if "order" in exc.reasons and not exc.only_conflicts:
            raise ORDER.lost(order_id, order_collection(order_id).order.status, done) from exc
        raise backoff.LostRace from exc
