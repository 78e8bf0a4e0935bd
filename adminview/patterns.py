"""The admin view's named reads, AV1-AV5 and the email lookup, in the shop's registry shape
(``shop.pattern_registry``), so the explorer runs them like AWS's 16. Items are the view table's own (DynamoDB
JSON turned into plain values); pages continue from the selectors' positions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from adminview import selectors
from adminview.models import Buyer, OrderSummary, PaymentRef, Profile
from dynamo.paging import Key, Page
from shop import keys
from shop.pattern_registry import AccessPattern, Param

VIEW = "admin view"
GROUP = "ours (admin view)"


def _paged(select: Callable[..., selectors.RowsPage[Any]]) -> Callable[..., Page[Any]]:
    def fetch(*, limit: int, start_key: Key | None = None, **params: str) -> Page[Any]:
        page = select(limit=limit, after=start_key, **params)
        return Page(items=page.rows, next_key=page.next)

    return fetch


def _profiles(*, limit: int, start_key: Key | None = None, customer_id: str) -> Page[Any]:
    found = selectors.customer_profiles(customer_ids=customer_id.split(","))
    return Page(items=[p for p in found if p is not None])


def _as_stored(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """The admin view's selectors list items as DynamoDB JSON already."""
    return item


def _av(*args: Any) -> AccessPattern:
    return replace(AccessPattern(*args), group=GROUP, attributes=_as_stored)


_CID = Param("customer_id", prefix=keys.CUSTOMER)

AV_PATTERNS: list[AccessPattern] = [
    _av(
        "AV1", "getOrdersByCustomerId", (_CID,), _paged(selectors.customer_order_items),
        "a customer's orders, newest first",
        VIEW, "GSI4", "Query", "GSI4PK = c#<customer_id>, newest first (GSI4SK = <date>#<order id>)",
        OrderSummary,
    ),
    _av(
        "AV2", "getPendingOrders", (), _paged(selectors.pending_order_items),
        "every PENDING order, newest first (sparse index, write-sharded: one Query per shard, merged)",
        VIEW, "GSI1", "Query", "GSI1PK = PENDING#<shard> for every shard, newest first (GSI1SK = <date>#<order id>)",
        OrderSummary,
    ),
    _av(
        "AV3", "getBuyersByProductId", (Param("product_id", prefix=keys.PRODUCT),), _paged(selectors.buyer_relations),
        "who bought a product: one relation per (product, customer, order) for orders not CANCELLED",
        VIEW, "GSI2", "Query", "GSI2PK = p#<product_id>, by GSI2SK = c#<customer id>#o#<order id>",
        Buyer,
    ),
    _av(
        "AV4", "getProfilesByCustomerIds",
        (Param("customer_id", "ids", keys.CUSTOMER, help="up to 100 ids separated by commas"),), _profiles,
        "customer profiles by id (phase 2 of the buyers join)",
        VIEW, None, "BatchGetItem", "PK = c#<customer_id>, SK = #profile for each id (<=100 keys a call)",
        Profile,
    ),
    _av(
        "AV5", "getOrderByTransactionId", (Param("transaction_id", "text"),), _paged(selectors.transaction_items),
        "the order behind a payment TransactionId",
        VIEW, "GSI3", "Query", "GSI3PK = t#<transaction_id>", PaymentRef,
    ),
    _av(
        "AV-email", "getCustomerByEmail", (Param("email", "text"),), _paged(selectors.customer_items_for_email),
        "the customer with an email address (exact, case-insensitive; sparse index of profiles with an email)",
        VIEW, "GSI5", "Query", "GSI5PK = email#<lower-cased email>", Profile,
    ),
]  # fmt: skip
