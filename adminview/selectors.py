"""Read functions of the admin view (the contract with the dashboard): plain positions in, plain positions out.

Every function issues a bounded number of calls that does not grow with the table:
- ``pending_orders`` / ``orders_by_status``: one Query per write shard of GSI1 (in parallel threads), merged
  newest first; ``new_orders_since``: the same, from the newest key a page showed (the live queue);
- ``activity``: one Query per write shard of GSI6 (all staff changes, or one kind's), or one (a user's);
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
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, Generic, TypeVar, cast

from adminview.models import (
    ACTIVITY_KINDS,
    INDEXED_STATUSES,
    ORDER_SK,
    PROFILE_SK,
    ViewItem,
    activity_key,
    activity_kind,
    category_key,
    email_key,
    kind_activity_key,
    pending_shards,
    status_key,
    user_activity_key,
)
from adminview.projection import MAX_CATEGORY
from dynamo import ddb_json
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
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_USERNAME = 150
NEW_ORDERS_CAP = 20  # the live queue says "20+ new orders" beyond this


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
    position: str = ""  # the row's sort key in its index (the live queue asks for rows after the newest)


@dataclass(frozen=True)
class BuyerRow:
    customer_id: str
    orders: int
    name: str | None
    email: str | None


def _order_row(raw: Raw) -> OrderRow:
    date_text, total_text, count_text = (
        ddb_json.text(raw, "Date"),
        ddb_json.text(raw, "Total"),
        ddb_json.text(raw, "ItemCount"),
    )
    try:
        date = parse_ts(date_text) if date_text else None
    except ValueError:
        date = None
    try:
        total = Decimal(total_text) if total_text else None
    except InvalidOperation:
        total = None
    return OrderRow(
        order_id=ddb_json.text(raw, "OrderId") or "",
        customer_id=ddb_json.text(raw, "CustomerId") or "",
        date=date,
        status=ddb_json.text(raw, "Status"),
        total=total,
        item_count=int(count_text) if count_text else None,
        position=ddb_json.text(raw, "GSI1SK") or ddb_json.text(raw, "GSI4SK") or "",
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
    between: tuple[str, str] | None = None,
    forward: bool = False,
) -> list[Raw]:
    """One Query page of a view index: the partition ``pk``, optionally sort keys before or after a position,
    or between two bounds (inclusive)."""
    client, table = client_of(ViewItem), str(ViewItem.Meta.table_name)
    condition = "#pk = :pk"
    values: dict[str, Any] = {":pk": ddb_json.s(pk)}
    if before is not None:
        condition += " AND #sk < :pos"
        values[":pos"] = ddb_json.s(before)
    elif after is not None:
        condition += " AND #sk > :pos"
        values[":pos"] = ddb_json.s(after)
    elif between is not None:
        condition += " AND #sk BETWEEN :lo AND :hi"
        values[":lo"], values[":hi"] = ddb_json.s(between[0]), ddb_json.s(between[1])
    names = {"#pk": pk_name}
    if len(values) > 1:
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


def _orders_page(found: list[Raw], sort_attr: str, limit: int) -> RowsPage[Raw]:
    found.sort(key=lambda r: ddb_json.string(r, sort_attr) or "", reverse=True)
    rows = found[:limit]
    more = len(found) > limit
    return RowsPage(rows, {"before": ddb_json.string(rows[-1], sort_attr)} if more else None)


def _as_order_rows(page: RowsPage[Raw]) -> RowsPage[OrderRow]:
    return RowsPage([_order_row(r) for r in page.rows], page.next)


def _each_shard(query: Any) -> list[Raw]:
    """``query(n)`` for every write shard, in parallel threads (calls recorded in the request's log)."""
    shards = pending_shards()
    with ThreadPoolExecutor(max_workers=min(shards, 16)) as pool:
        return [r for part in pool.map(run_in_context(query), range(shards)) for r in part]


def _status(status: str) -> str:
    if status not in INDEXED_STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(INDEXED_STATUSES)}")
    return status


def pending_orders(*, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[OrderRow]:
    """AV2 as rows for the pending page."""
    return orders_by_status(status="PENDING", limit=limit, after=after)


def orders_by_status(*, status: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[OrderRow]:
    """The orders of one indexed status (PENDING, SHIPPED, CANCELLED) as rows, newest first."""
    return _as_order_rows(order_items_by_status(status=status, limit=limit, after=after))


def pending_order_items(*, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Raw]:
    """AV2: all PENDING orders (index items), newest first, merged over the write shards."""
    return order_items_by_status(status="PENDING", limit=limit, after=after)


def order_items_by_status(*, status: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Raw]:
    """The orders of one indexed status (index items), newest first, merged over the write shards (one Query
    per shard, in parallel)."""
    wanted = _status(status)
    check_limit(limit)
    before = _order_position(after)
    found = _each_shard(
        lambda n: _query("GSI1", "GSI1PK", status_key(wanted, n), "GSI1SK", limit=limit + 1, before=before)
    )
    return _orders_page(found, "GSI1SK", limit)


@dataclass(frozen=True)
class CategoryOrderRow(OrderRow):
    category: str = ""
    units: int = 0
    revenue: Decimal = Decimal(0)  # of the order's lines of this category


def category_orders(
    *, category: str, start: date, end: date, limit: int = 50, after: dict[str, Any] | None = None
) -> RowsPage[CategoryOrderRow]:
    """A category's orders placed in ``start``..``end`` (UTC days, both included), newest first: one Query per
    write shard of GSI7 (sorted by date), merged, and one BatchGetItem of the page's order summaries (their status
    and total, which the category entries do not carry)."""
    name = category.strip()
    if not name or len(name) > MAX_CATEGORY:
        raise InvalidInput(f"a category is 1 to {MAX_CATEGORY} characters")
    if end < start:
        raise InvalidInput("the range ends before it starts")
    check_limit(limit)
    before = _order_position(after) or (end + timedelta(days=1)).isoformat()
    found = _each_shard(
        lambda n: _query("GSI7", "GSI7PK", category_key(name, n), "GSI7SK", limit=limit + 1, before=before)
    )
    in_range = [r for r in found if (ddb_json.string(r, "GSI7SK") or "") >= start.isoformat()]
    page = _orders_page(in_range, "GSI7SK", limit)
    client, table = client_of(ViewItem), str(ViewItem.Meta.table_name)
    summaries = batch_get(
        client, table, [ddb_json.key(ddb_json.item_key(r)[0], ORDER_SK) for r in page.rows], key_names=("PK", "SK")
    )
    rows = [
        CategoryOrderRow(
            **vars(_order_row({**r, **{n: v for n, v in (summary or {}).items() if n in ("Status", "Total")}}))
            | {"position": ddb_json.string(r, "GSI7SK") or ""},
            category=name,
            units=ddb_json.integer(r, "Units") or 0,
            revenue=Decimal(ddb_json.text(r, "Revenue") or "0"),
        )
        for r, summary in zip(page.rows, summaries, strict=True)
    ]
    return RowsPage(rows, page.next)


def new_orders_since(*, status: str, newest: str) -> int:
    """How many orders of ``status`` sort after ``newest`` (the first row a page showed), capped at
    ``NEW_ORDERS_CAP`` + 1: one small Query per shard (``GSI1SK > newest``), whatever the table's size."""
    wanted = _status(status)
    if newest and not _ORDER_POS.match(newest):
        raise InvalidInput("malformed position")
    found = _each_shard(
        lambda n: _query(
            "GSI1",
            "GSI1PK",
            status_key(wanted, n),
            "GSI1SK",
            limit=NEW_ORDERS_CAP + 1,
            after=newest or None,
            forward=True,
        )
    )
    return min(len(found), NEW_ORDERS_CAP + 1)


def customer_orders(*, customer_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[OrderRow]:
    """AV1 as rows for the customer page."""
    return _as_order_rows(customer_order_items(customer_id=customer_id, limit=limit, after=after))


def customer_order_items(*, customer_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Raw]:
    """AV1: a customer's orders (index items), newest first (GSI4)."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    check_limit(limit)
    before = _order_position(after)
    found = _query("GSI4", "GSI4PK", keys.customer(cid), "GSI4SK", limit=limit + 1, before=before)
    return _orders_page(found, "GSI4SK", limit)


def _relation_customer(raw: Raw) -> str:
    return (ddb_json.string(raw, "GSI2SK") or "").split("#")[1]  # c#<cid>#o#<oid>; ids never contain '#'


def product_buyers(*, product_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[BuyerRow]:
    """AV3 then AV4: distinct buyers ordered by customer id, with how many of their non-cancelled orders hold
    the product; profiles with one BatchGetItem (<=100 keys a call, parallel, unprocessed keys retried)."""
    pid = keys.bare(product_id, keys.PRODUCT)
    check_limit(limit)
    start: str | None = None
    if after is not None:
        if not isinstance(after, dict) or set(after) != {"after"} or not isinstance(after["after"], str):
            raise InvalidInput("malformed page position")
        # "~" sorts after the order part of the sort key: skip every relation of the last customer shown
        start = f"{keys.customer(after['after'])}#~"
    counts: dict[str, int] = {}
    page_size = min(1000, max(100, 4 * (limit + 1)))
    while len(counts) <= limit:
        found = _relations(pid, limit=page_size, after=start)
        for raw in found:
            cid = _relation_customer(raw)
            counts[cid] = counts.get(cid, 0) + 1
        if len(found) < page_size:
            break
        start = ddb_json.string(found[-1], "GSI2SK")
    customers = list(counts)[:limit]
    more = len(counts) > limit  # the loop stops once it sees customer limit+1, so counts are complete
    profiles = customer_profiles(customer_ids=customers, attributes=["Name", "Email"]) if customers else []
    rows = [
        BuyerRow(
            customer_id=c,
            orders=counts[c],
            name=ddb_json.text(p, "Name") if p else None,
            email=ddb_json.text(p, "Email") if p else None,
        )
        for c, p in zip(customers, profiles, strict=True)
    ]
    return RowsPage(rows, {"after": customers[-1]} if more and customers else None)


def order_id_for_transaction(*, transaction_id: str) -> str | None:
    """AV5: the order behind a payment TransactionId (GSI3), or None."""
    found = transaction_items(transaction_id=transaction_id, limit=1).rows
    return ddb_json.text(found[0], "OrderId") if found else None


def transaction_items(*, transaction_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Raw]:
    """AV5: the payment references carrying a TransactionId (GSI3, keys and OrderId)."""
    text = transaction_id.strip() if isinstance(transaction_id, str) else ""
    if not text or len(text) > MAX_TRANSACTION_ID:
        raise InvalidInput("a transaction id is 1-256 characters")
    check_limit(limit)
    position = _sort_position(after)
    found = _query("GSI3", "GSI3PK", keys.transaction(text), "GSI3SK", limit=limit + 1, after=position, forward=True)
    return _forward_page(found, "GSI3SK", limit)


def customer_items_for_email(*, email: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Raw]:
    """Profiles whose email is ``email`` (exact, case-insensitive): GSI5 ``email#<lower-cased>``, KEYS_ONLY."""
    key = email_key(email) if isinstance(email, str) else None
    if key is None or "@" not in key:
        raise InvalidInput(f"{email!r} is not an email address")
    check_limit(limit)
    found = _query("GSI5", "GSI5PK", key, "GSI5SK", limit=limit + 1, after=_sort_position(after), forward=True)
    return _forward_page(found, "GSI5SK", limit)


def customer_id_for_email(*, email: str) -> str | None:
    """The customer with this email (the lowest id when several share it), or None."""
    found = customer_items_for_email(email=email, limit=1).rows
    return keys.bare(ddb_json.item_key(found[0])[0], keys.CUSTOMER) if found else None


def _sort_position(after: dict[str, Any] | None) -> str | None:
    if after is None:
        return None
    if not isinstance(after, dict) or set(after) != {"after"} or not isinstance(after["after"], str):
        raise InvalidInput("malformed page position")
    return str(after["after"])


def _forward_page(found: list[Raw], sort_attr: str, limit: int) -> RowsPage[Raw]:
    rows = found[:limit]
    return RowsPage(rows, {"after": ddb_json.string(rows[-1], sort_attr)} if len(found) > limit and rows else None)


def _relations(product_id: str, *, limit: int, after: str | None) -> list[Raw]:
    return _query("GSI2", "GSI2PK", keys.product(product_id), "GSI2SK", limit=limit, after=after, forward=True)


def buyer_relations(*, product_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Raw]:
    """AV3: a product's buyer relations (GSI2, sparse: orders not CANCELLED), by customer then order."""
    pid = keys.bare(product_id, keys.PRODUCT)
    check_limit(limit)
    return _forward_page(_relations(pid, limit=limit + 1, after=_sort_position(after)), "GSI2SK", limit)


def customer_profiles(*, customer_ids: list[str], attributes: list[str] | None = None) -> list[Raw | None]:
    """AV4: profiles by customer id with BatchGetItem (<=100 keys a call, parallel, unprocessed keys retried);
    the result lines up with ``customer_ids`` (None: no profile)."""
    return batch_get(
        client_of(ViewItem),
        str(ViewItem.Meta.table_name),
        [ddb_json.key(keys.customer(c), PROFILE_SK) for c in customer_ids],
        key_names=("PK", "SK"),
        attributes=attributes,
    )


# --- staff activity (GSI6) ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActivityRow:
    order_id: str
    at: datetime | None
    action: str
    user: str
    from_status: str | None
    to_status: str | None
    order_version: int | None
    request_id: str | None
    product_id: str | None
    detail: str | None
    position: str
    kind: str = "order"  # models.activity_kind: order, customer, product, stock, warehouse, system
    entity_id: str | None = None  # the customer, product or warehouse an entity edit changed (bare)


def _activity_row(raw: Raw) -> ActivityRow:
    at_text, version_text = ddb_json.text(raw, "At"), ddb_json.text(raw, "OrderVersion")
    pk = ddb_json.string(raw, "PK") or ""
    kind = activity_kind(pk, ddb_json.text(raw, "Action"))
    try:
        at = parse_ts(at_text) if at_text else None
    except ValueError:
        at = None
    return ActivityRow(
        order_id=ddb_json.text(raw, "OrderId") or "",
        at=at,
        action=ddb_json.text(raw, "Action") or "",
        user=ddb_json.text(raw, "User") or "",
        from_status=ddb_json.text(raw, "FromStatus"),
        to_status=ddb_json.text(raw, "ToStatus"),
        order_version=int(version_text) if version_text else None,
        request_id=ddb_json.text(raw, "RequestId"),
        product_id=ddb_json.text(raw, "ProductId"),
        detail=ddb_json.text(raw, "Detail"),
        position=ddb_json.text(raw, "GSI6SK") or "",
        kind=kind,
        entity_id=keys.strip(pk) if kind in ("customer", "product", "stock", "warehouse") else None,
    )


def _activity_query(pk: str, *, limit: int, before: str | None, day: str | None) -> list[Raw]:
    """Newest first within one GSI6 partition; ``day`` and the page position are both key conditions."""
    if day is None:
        return _query("GSI6", "GSI6PK", pk, "GSI6SK", limit=limit, before=before)
    high = min(before, day + "~") if before is not None else day + "~"
    if high < day:  # a position before the day: nothing of that day is left
        return []
    # BETWEEN includes its bound: the position itself may come back, so one more
    found = _query("GSI6", "GSI6PK", pk, "GSI6SK", limit=limit + 1, between=(day, high))
    return [r for r in found if ddb_json.string(r, "GSI6SK") != before]


def activity(
    *,
    limit: int = 50,
    after: dict[str, Any] | None = None,
    user: str | None = None,
    day: str | None = None,
    kind: str | None = None,
) -> RowsPage[ActivityRow]:
    """Staff changes newest first: all of them or one ``kind``'s (one Query per write shard), or one user's (one
    Query); ``day`` (``YYYY-MM-DD``) narrows any of them with a key condition. A user and a kind together are
    refused: each is its own index partition, and filtering one by the other would read pages that grow."""
    check_limit(limit)
    before = _order_position(after)
    if day is not None and not _DAY.match(day):
        raise InvalidInput("day must be YYYY-MM-DD")
    if user is not None and not 0 < len(user) <= MAX_USERNAME:
        raise InvalidInput(f"a user name is 1 to {MAX_USERNAME} characters")
    if kind is not None and kind not in ACTIVITY_KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(ACTIVITY_KINDS)}")
    if user is not None and kind is not None:
        raise InvalidInput("filter by a user or by a kind, not both")
    if user is not None:
        found = _activity_query(user_activity_key(user), limit=limit + 1, before=before, day=day)
    elif kind is not None:
        found = _each_shard(
            lambda n: _activity_query(kind_activity_key(kind, n), limit=limit + 1, before=before, day=day)
        )
    else:
        found = _each_shard(lambda n: _activity_query(activity_key(n), limit=limit + 1, before=before, day=day))
    found.sort(key=lambda r: ddb_json.string(r, "GSI6SK") or "", reverse=True)
    rows = found[:limit]
    more = len(found) > limit
    return RowsPage([_activity_row(r) for r in rows], {"before": ddb_json.string(rows[-1], "GSI6SK")} if more else None)
