"""Read functions of the admin view (the contract with the dashboard): plain positions in, plain positions out.

Every function issues a bounded number of calls that does not grow with the table:
- ``pending_orders``: one Query per write shard of GSI1 (in parallel threads), merged newest first;
- ``customer_orders``: one Query of GSI4;
- ``product_buyers``: one Query of GSI2 (more only when a page's buyers have very many relations) and one
  BatchGetItem for up to 100 profiles;
- ``order_id_for_transaction``: one Query of GSI3.

Positions are ``{"before": "<date>#<order id>"}`` (orders) and ``{"after": "<customer id>"}`` (buyers): the
sort key of the last row shown; every shard's index is sorted by the same key, so one value positions all
shards at once.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Generic, TypeVar, cast

from adminview.models import PROFILE_SK, ViewItem, pending_key, pending_shards
from dynamo.batch import batch_get
from dynamo.client import client_of
from dynamo.instrumentation import run_in_context
from dynamo.paging import check_limit
from shop import keys
from shop.errors import InvalidInput
from shop.timestamps import parse_ts

T = TypeVar("T")
Raw = dict[str, dict[str, Any]]
MAX_TRANSACTION_ID = 256
_ORDER_POS = re.compile(r"^[0-9T:\-.+Z ]{0,40}#[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


@dataclass(frozen=True)
class RowsPage(Generic[T]):
    rows: list[T]
    next: dict[str, Any] | None


@dataclass(frozen=True)
class OrderRow:
    order_id: str
    customer_id: str
    date: datetime | None
    status: str | None
    total: Decimal | None
    item_count: int | None


@dataclass(frozen=True)
class BuyerRow:
    customer_id: str
    orders: int
    name: str | None
    email: str | None


def _s(raw: Raw, name: str) -> str | None:
    value = raw.get(name) or {}
    return value.get("S") if "S" in value else value.get("N")


def _order_row(raw: Raw) -> OrderRow:
    date_text, total_text, count_text = _s(raw, "Date"), _s(raw, "Total"), _s(raw, "ItemCount")
    try:
        date = parse_ts(date_text) if date_text else None
    except ValueError:
        date = None
    try:
        total = Decimal(total_text) if total_text else None
    except InvalidOperation:
        total = None
    return OrderRow(
        order_id=_s(raw, "OrderId") or "",
        customer_id=_s(raw, "CustomerId") or "",
        date=date,
        status=_s(raw, "Status"),
        total=total,
        item_count=int(count_text) if count_text else None,
    )


def _order_position(after: dict[str, Any] | None) -> str | None:
    if after is None:
        return None
    if (
        not isinstance(after, dict)
        or set(after) != {"before"}
        or not isinstance(after["before"], str)
        or not _ORDER_POS.match(after["before"])
    ):
        raise InvalidInput("malformed page position")
    return str(after["before"])


def _query(
    index: str,
    pk_name: str,
    pk: str,
    sk_name: str,
    *,
    limit: int,
    before: str | None = None,
    after: str | None = None,
    forward: bool = False,
) -> list[Raw]:
    client, table = client_of(ViewItem), str(ViewItem.Meta.table_name)
    condition = "#pk = :pk"
    values: dict[str, Any] = {":pk": {"S": pk}}
    if before is not None:
        condition += " AND #sk < :pos"
        values[":pos"] = {"S": before}
    elif after is not None:
        condition += " AND #sk > :pos"
        values[":pos"] = {"S": after}
    names = {"#pk": pk_name}
    if ":pos" in values:
        names["#sk"] = sk_name
    response = client.query(
        TableName=table,
        IndexName=index,
        KeyConditionExpression=condition,
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=values,
        ScanIndexForward=forward,
        Limit=limit,
    )
    return cast("list[Raw]", response.get("Items", []))  # the stubs' TypedDicts, as our plain Raw maps


def _orders_page(found: list[Raw], sort_attr: str, limit: int) -> RowsPage[OrderRow]:
    found.sort(key=lambda r: r[sort_attr]["S"], reverse=True)
    rows = found[:limit]
    more = len(found) > limit
    return RowsPage([_order_row(r) for r in rows], {"before": rows[-1][sort_attr]["S"]} if more else None)


def pending_orders(*, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[OrderRow]:
    """AV2: all PENDING orders, newest first, merged over the write shards (one Query per shard, parallel)."""
    check_limit(limit)
    before = _order_position(after)
    shards = pending_shards()

    def shard(n: int) -> list[Raw]:
        return _query("GSI1", "GSI1PK", pending_key(n), "GSI1SK", limit=limit + 1, before=before)

    with ThreadPoolExecutor(max_workers=min(shards, 16)) as pool:
        found = [r for part in pool.map(run_in_context(shard), range(shards)) for r in part]
    return _orders_page(found, "GSI1SK", limit)


def customer_orders(*, customer_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[OrderRow]:
    """AV1: a customer's orders, newest first (GSI4)."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    check_limit(limit)
    before = _order_position(after)
    found = _query("GSI4", "GSI4PK", keys.CUSTOMER + cid, "GSI4SK", limit=limit + 1, before=before)
    return _orders_page(found, "GSI4SK", limit)


def _relation_customer(raw: Raw) -> str:
    return str(raw["GSI2SK"]["S"]).split("#")[1]  # c#<cid>#o#<oid>; ids never contain '#'


def product_buyers(*, product_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[BuyerRow]:
    """AV3 then AV4: distinct buyers ordered by customer id, with how many of their non-cancelled orders hold
    the product; profiles with one BatchGetItem (<=100 keys a call, parallel, unprocessed keys retried)."""
    pid = keys.bare(product_id, keys.PRODUCT)
    check_limit(limit)
    start: str | None = None
    if after is not None:
        if not isinstance(after, dict) or set(after) != {"after"} or not isinstance(after["after"], str):
            raise InvalidInput("malformed page position")
        # '~' sorts after "o#...": skip every relation of the last customer shown
        start = f"{keys.CUSTOMER}{keys.bare(after['after'], keys.CUSTOMER)}#~"
    counts: dict[str, int] = {}
    page_size = min(1000, max(100, 4 * (limit + 1)))
    while len(counts) <= limit:
        found = _query("GSI2", "GSI2PK", keys.PRODUCT + pid, "GSI2SK", limit=page_size, after=start, forward=True)
        for raw in found:
            cid = _relation_customer(raw)
            counts[cid] = counts.get(cid, 0) + 1
        if len(found) < page_size:
            break
        start = found[-1]["GSI2SK"]["S"]
    customers = list(counts)[:limit]
    more = len(counts) > limit  # the loop stops once it sees customer limit+1, so counts are complete
    profiles = (
        batch_get(
            client_of(ViewItem),
            str(ViewItem.Meta.table_name),
            [{"PK": {"S": keys.CUSTOMER + c}, "SK": {"S": PROFILE_SK}} for c in customers],
            key_names=("PK", "SK"),
            attributes=["Name", "Email"],
        )
        if customers
        else []
    )
    rows = [
        BuyerRow(
            customer_id=c, orders=counts[c], name=_s(p, "Name") if p else None, email=_s(p, "Email") if p else None
        )
        for c, p in zip(customers, profiles, strict=True)
    ]
    return RowsPage(rows, {"after": customers[-1]} if more and customers else None)


def order_id_for_transaction(*, transaction_id: str) -> str | None:
    """AV5: the order behind a payment TransactionId (GSI3), or None."""
    if (
        not isinstance(transaction_id, str)
        or not transaction_id.strip()
        or len(transaction_id.strip()) > MAX_TRANSACTION_ID
    ):
        raise InvalidInput("a transaction id is 1-256 characters")
    found = _query("GSI3", "GSI3PK", keys.TRANSACTION + transaction_id.strip(), "GSI3SK", limit=1)
    return _s(found[0], "OrderId") if found else None
