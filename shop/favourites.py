"""Favourite products: a ``Favourite`` in the customer's partition and the order item's ``Favourite`` flag, written
in one TransactWriteItems conditioned on the order item still holding that product. Its ClientRequestToken makes
botocore's resend after a lost answer succeed, not fail as a false "already a favourite".
"""

from __future__ import annotations

from datetime import datetime

from pynamodb.expressions.condition import Condition

from dynamo.paging import get_or_none
from dynamo.transactions import Transaction, TransactionCancelled, request_token
from shop import access_patterns, audit, keys
from shop.audit import Actor
from shop.errors import Busy, FavouriteConflict, NotFound
from shop.models import Favourite, OrderItem, ShopItem
from shop.order_reads import order_by_id
from shop.timestamps import now


def _order_item(order_id: str, product_id: str) -> OrderItem:
    item = get_or_none(OrderItem, keys.order(order_id), keys.product(product_id))
    if not isinstance(item, OrderItem):
        raise NotFound("order item", f"{order_id} / {product_id}")
    return item


def _customer_of(item: OrderItem) -> str:
    """The order item's customer (GSI2-PK), else the order's (one Query)."""
    if item.customer_id:
        return item.customer_id
    order = order_by_id(item.order_id)
    if order is None:
        raise NotFound("order", item.order_id)
    return order.customer_id


def _holds(product_id: str) -> Condition:
    """The order item still holds ``product_id`` (no update may create a ghost item)."""
    same_entity: Condition = ShopItem.entity_type == OrderItem  # PynamoDB types a discriminator's == loosely
    holds: Condition = OrderItem.pk.exists() & same_entity & (OrderItem.gsi1_pk == keys.product(product_id))
    return holds


def favourite_get(*, customer_id: str, product_id: str) -> Favourite | None:
    item = get_or_none(Favourite, keys.customer(customer_id), keys.favourite(product_id))
    return item if isinstance(item, Favourite) else None


def favourite_add(
    *, order_id: str, product_id: str, at: datetime | None = None, actor: Actor | None = None
) -> Favourite:
    """Mark the product of an order item as the customer's favourite (one transaction, two items)."""
    oid, pid = keys.bare(order_id, keys.ORDER), keys.bare(product_id, keys.PRODUCT)
    item = _order_item(oid, pid)
    cid = _customer_of(item)
    name, price = item.product_name, item.price
    if name is None or price is None:  # AWS's sample items have neither: take them from the product
        product = access_patterns.product_by_id(product_id=pid)
        name = name or (product.name if product else pid)
        price = price if price is not None else (product.price if product else None)
    favourite = Favourite(
        **keys.favourite_keys(cid, pid), product_name=name, price=price, order_id=oid, date=at or now()
    )
    tx = Transaction(ShopItem, token=request_token())
    tx.put("favourite", favourite, ShopItem.pk.does_not_exist())
    tx.update("order-item", OrderItem(pk=item.pk, sk=item.sk), [OrderItem.favourite.set(True)], _holds(pid))
    audit.record(tx, actor, action="favourite", order_id=oid, product_id=pid)
    try:
        tx.commit()
    except TransactionCancelled as exc:
        raise _why(exc, adding=True, customer_id=cid, order_id=oid, product_id=pid) from exc
    return favourite


def favourite_remove(*, order_id: str, product_id: str, actor: Actor | None = None) -> None:
    """Un-mark: delete the favourite and clear the order item's flag (one transaction, two items)."""
    oid, pid = keys.bare(order_id, keys.ORDER), keys.bare(product_id, keys.PRODUCT)
    item = _order_item(oid, pid)
    cid = _customer_of(item)
    tx = Transaction(ShopItem, token=request_token())
    mine = Favourite.pk.exists() & (Favourite.order_id == oid)
    tx.delete("favourite", Favourite(**keys.favourite_keys(cid, pid)), mine)
    tx.update("order-item", OrderItem(pk=item.pk, sk=item.sk), [OrderItem.favourite.remove()], _holds(pid))
    audit.record(tx, actor, action="unfavourite", order_id=oid, product_id=pid)
    try:
        tx.commit()
    except TransactionCancelled as exc:
        raise _why(exc, adding=False, customer_id=cid, order_id=oid, product_id=pid) from exc


def _why(exc: TransactionCancelled, *, adding: bool, customer_id: str, order_id: str, product_id: str) -> Exception:
    failed = set(exc.failed("ConditionalCheckFailed"))
    action = "marked" if adding else "un-marked"
    if "order-item" in failed:
        return FavouriteConflict(
            f"order {order_id} no longer holds product {product_id} (its order item was removed or changed); "
            f"nothing was {action}",
            reason="order-item-changed",
        )
    if "favourite" in failed:
        existing = favourite_get(customer_id=customer_id, product_id=product_id)
        if adding:
            origin = f" (marked from order {existing.order_id})" if existing and existing.order_id else ""
            return FavouriteConflict(
                f"product {product_id} is already a favourite of customer {customer_id}{origin}; nothing was marked",
                reason="already-favourite",
            )
        if existing is None:
            return FavouriteConflict(
                f"product {product_id} is not a favourite of customer {customer_id}; nothing was un-marked",
                reason="not-favourite",
            )
        return FavouriteConflict(
            f"product {product_id} was marked as a favourite from order {existing.order_id}, "
            f"not {order_id}; un-mark it there",
            reason="other-order",
        )
    if exc.only_conflicts:
        return Busy(
            f"favourite {product_id} of customer {customer_id}: another change to the same items is in "
            "progress; nothing was written, try again"
        )
    return exc
