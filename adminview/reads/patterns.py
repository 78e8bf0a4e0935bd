"""The admin view's named reads (AV1-AV5, the email lookup and search) in the shop's registry shape
(``shop.pattern_registry``), so the explorer and ``access_pattern`` run them like AWS's 16. Items are the view
table's own, shown as DynamoDB stores them (the selectors decode them; ``_av`` encodes them back for the explorer,
the one reader of DynamoDB's own shapes); pages continue from the selectors' positions; every key
condition is written out by ``adminview.core.schema``'s own key functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from adminview.core import schema
from adminview.reads import search, selectors
from adminview.reads.reads import RowsPage
from dynamo import item_codec
from dynamo.paging import Key, Page
from shop import keys
from shop.keys import OrderStatus
from shop.pattern_registry import AccessPattern, Param

VIEW = "admin view"
GROUP = "ours (admin view)"
CID, PID, OID, DATE = "<customer_id>", "<product_id>", "<order id>", "<date>"


def _paged(select: Callable[..., RowsPage[Any]]) -> Callable[..., Page[Any]]:
    def fetch(*, limit: int, start_key: Key | None = None, **params: str) -> Page[Any]:
        page = select(limit=limit, after=start_key, **params)
        return Page(items=page.rows, next_key=page.next)

    return fetch


def _profiles(*, limit: int, start_key: Key | None = None, customer_id: str) -> Page[Any]:
    found = selectors.customer_profiles(customer_ids=customer_id.split(","), attributes=[schema.KIND, "Name", "Email"])
    return Page(items=[p for p in found if p is not None])


def _by_email(*, limit: int, start_key: Key | None = None, email: str) -> Page[Any]:
    return Page(items=selectors.email_entries(email=email, limit=limit))


def _av(*args: Any) -> AccessPattern:
    """An admin view read, its items shown as DynamoDB stores them (the explorer shows DynamoDB's own shapes)."""
    return replace(AccessPattern(*args), group=GROUP, attributes=item_codec.encode)


_CID = Param("customer_id", prefix=keys.CUSTOMER)
_customer_orders, _position = schema.customer_order(CID, DATE, OID), schema.order_position(DATE, OID)

AV_PATTERNS: list[AccessPattern] = [
    _av(
        "AV1", "getOrdersByCustomerId", (_CID,), _paged(selectors.customer_order_entries),
        "a customer's orders, newest first (their order entries; the page reads the summaries by key)",
        VIEW, None, "Query", f"PK = {_customer_orders[0]}, SK begins with {schema.CUSTOMER_ORDER_PREFIX}, newest first",
        schema.columns(schema.CUSTOMER_ORDER),
    ),
    _av(
        "AV2", "getPendingOrders", (), _paged(lambda **kw: selectors.status_items(status=OrderStatus.PENDING, **kw)),
        "every PENDING order, newest first (sparse index, write-sharded: one Query per shard, merged)",
        VIEW, schema.ORDERS_BY_STATUS.name, "Query",
        f"{schema.ORDERS_BY_STATUS.hash_key} = {schema.status_partition('PENDING', 0)[:-1]}<shard> for every shard, "
        f"newest first ({schema.ORDERS_BY_STATUS.range_key} = {_position})",
        schema.columns(schema.ORDER),
    ),
    _av(
        "AV3", "getBuyersByProductId", (Param("product_id", prefix=keys.PRODUCT),), _paged(selectors.buyer_relations),
        "who bought a product: one relation per customer, counting their orders of it that are not cancelled",
        VIEW, None, "Query", f"PK = {schema.buyers(PID, '')[0]}, by SK = {schema.buyers(PID, CID)[1]}",
        schema.columns(schema.BUYERS),
    ),
    _av(
        "AV4", "getProfilesByCustomerIds",
        (Param("customer_id", "ids", keys.CUSTOMER, help="up to 100 ids separated by commas"),), _profiles,
        "customer profiles by id (phase 2 of the buyers join)",
        VIEW, None, "BatchGetItem", f"PK = {schema.profile(CID)[0]}, SK = {schema.profile(CID)[1]} for each id "
        "(<=100 keys a call)",
        schema.columns(schema.PROFILE),
    ),
    _av(
        "AV5", "getOrderByTransactionId", (Param("transaction_id", "text"),), _paged(selectors.payment_entries),
        "the order behind a payment TransactionId (case ignored)",
        VIEW, None, "Query", f"PK = {schema.transaction_key('<transaction_id>')}", schema.columns(schema.PAYMENT),
    ),
    _av(
        "AV-email", "getCustomerByEmail", (Param("email", "text"),), _by_email,
        "the customer with an email address (exact, case ignored: its search entry)",
        VIEW, None, "Query",
        f"PK = {schema.SEARCH_PREFIX}<first 2 letters of the email>, "
        f"SK begins with {schema.search_entry('<email>', 'customer', '')[1]}",
        schema.columns(schema.SEARCH),
    ),
    _av(
        "AV-search", "searchByName", (Param("text", "text"),), _paged(search.entries),
        "the search entries of a word: customers and products with a word of their name (or email) starting with it",
        VIEW, None, "Query",
        f"PK = {schema.SEARCH_PREFIX}<first 2 letters of the longest word>, SK begins with <that word, lower-cased>",
        ("Found", "Id"),
    ),
]  # fmt: skip
