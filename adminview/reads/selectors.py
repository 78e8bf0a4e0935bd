"""Read functions of the admin view (the contract with the dashboard): plain positions in, rows and positions out.
Each issues a bounded number of calls that does not grow with the table (its docstring says which): a Query per
write shard of a list, merged, and a BatchGetItem of what the list's entries do not carry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, TypedDict, Unpack

from adminview.core import numbers, schema, values
from adminview.core.schema import OrderRow
from adminview.reads import reads
from adminview.reads.reads import Item, Range, RowsPage, get_many, list_page, list_shards, order_position, query
from dynamo.paging import check_limit
from shop import keys, order_status
from shop.errors import InvalidInput
from shop.timestamps import EVERY_DAY, DateRange

MAX_TRANSACTION_ID = 256
NEW_ORDERS_CAP = 20  # the live queue says "20+ new orders" beyond this
NEWEST, OLDEST = "newest", "oldest"
SORTS = (NEWEST, OLDEST)
ALL = "ALL"  # the list of every order with a status: the listed statuses' lists merged
LISTS = (*schema.LISTED_STATUSES, ALL)
BY_STATUS = schema.ORDERS_BY_STATUS

__all__ = ["OrderRow", "RowsPage"]


class ListOptions(TypedDict, total=False):
    """What a list of orders takes besides what it lists: a page's size and position, its sort, a range of days."""

    limit: int
    after: dict[str, Any] | None
    sort: str
    dates: DateRange


def order_row(item: Item | None, position: str = "") -> OrderRow:
    return schema.ORDER_KIND.read(item, position=position)


def _after_page(found: list[Item], limit: int, last_of: Callable[[Item], str | None]) -> RowsPage[Item]:
    """A forward Query's page (asked for one item more than shown); ``last_of`` names the last row's position."""
    rows = found[:limit]
    last = last_of(rows[-1]) if rows else None
    return RowsPage(rows, {"after": last} if len(found) > limit and last else None)


def _forward(sort: str) -> bool:
    if sort not in SORTS:
        raise InvalidInput(f"sort must be one of {', '.join(SORTS)}")
    return sort == OLDEST


def status_partitions(status: str) -> list[str]:
    """The ``ORDERS_BY_STATUS`` partitions of a status's list: its write shards (``ALL``: every listed one's)."""
    if status not in LISTS:
        raise InvalidInput(f"status must be one of {', '.join(LISTS)}")
    statuses = schema.LISTED_STATUSES if status == ALL else (status,)
    return [schema.status_partition(s, n) for s in statuses for n in range(schema.list_shards())]


def _checked(options: ListOptions) -> tuple[int, bool, str | None, DateRange]:
    """A list's options checked, defaults filled in."""
    forward = _forward(options.get("sort", NEWEST))
    limit = check_limit(options.get("limit", 50))
    return limit, forward, order_position(options.get("after"), forward=forward), options.get("dates", EVERY_DAY)


def status_items(*, status: str, **options: Unpack[ListOptions]) -> RowsPage[Item]:
    """The orders of one listed status, or of all of them (``ALL``), as index items: one Query per partition
    (``status_partitions``), merged by date.

    Every partition sorts by the order's ``<date>#<oid>``, unique and the same whatever the status, so the position
    after the last row shown positions every partition: a still table pages without duplicates or gaps. While
    staff page, an order whose status changes keeps its place on ``ALL`` (it moves to another status's partition
    under the same sort key) and is shown once, but for a page read in the moment DynamoDB's index takes to follow
    the move (it may miss the order or show it twice). On one status's list it leaves or joins the list: shown if
    its place is still ahead of the position and it is in that status when the page is read, never twice."""
    partitions = status_partitions(status)
    limit, forward, start, dates = _checked(options)
    return list_page(partitions, limit, index=BY_STATUS, forward=forward, after=start, within=Range(*dates.bounds()))


def orders_by_status(*, status: str, **options: Unpack[ListOptions]) -> RowsPage[OrderRow]:
    page = status_items(status=status, **options)
    key = BY_STATUS.range_key
    return RowsPage([order_row(r, values.string(r, key) or "") for r in page.rows], page.next)


def pending_orders(**options: Unpack[ListOptions]) -> RowsPage[OrderRow]:
    """AV2: every PENDING order as rows."""
    return orders_by_status(status=schema.LISTED_STATUSES[0], **options)


def new_orders_since(*, status: str, newest: str) -> int:
    """How many orders of ``status`` (or ``ALL``) sort after ``newest`` (the first row a page showed), capped at
    ``NEW_ORDERS_CAP`` + 1: one small Query per partition, whatever the table's size."""
    partitions = status_partitions(status)
    start = order_position({"after": newest}, forward=True) if newest else None
    page = list_page(partitions, NEW_ORDERS_CAP, index=BY_STATUS, after=start)
    return len(page.rows) + (page.next is not None)


def summaries(order_ids: list[str]) -> list[Item | None]:
    shown = [*schema.ORDER_ROW, schema.ORDER_KIND.attribute("shipments")]
    return get_many([schema.order_anchor(oid) for oid in order_ids], attributes=shown)


_SETTLED = tuple(schema.ORDER_KIND.attribute(f) for f in ("status", "total", "lines", "paid", "sent"))
_REFUNDS = schema.REFUNDS_KIND.attribute("refunds")


def order_states(order_ids: list[str]) -> dict[str, order_status.OrderState]:
    """Each order's money and shipping as the view keeps them (``shop.order_status.OrderState``, without its
    lines), by order id: one BatchGetItem of the orders' summaries and their refunds' anchors."""
    wanted = list(dict.fromkeys(order_ids))
    anchors = [key for oid in wanted for key in (schema.order_anchor(oid), schema.refunds_anchor(oid))]
    found = get_many(anchors, [*_SETTLED, _REFUNDS]) if wanted else []
    states = {}
    for oid, summary, refunds in zip(wanted, found[::2], found[1::2], strict=True):
        if summary is None:
            continue
        row = schema.ORDER_KIND.read(summary)
        lines = {keys.strip(sk): values.entries(line) for sk, line in (row.lines or {}).items()}
        ordered = {pid: values.integer(line, "Quantity") or 0 for pid, line in lines.items()}
        sent: dict[str, int] = {}
        for part in (values.entries(p) for p in (row.sent or {}).values()):
            pid = values.string(part, "ProductId") or ""
            sent[pid] = sent.get(pid, 0) + (values.integer(part, "Quantity") or 0)
        priced = (numbers.decimal_of(values.text(line, "Price")) * ordered[pid] for pid, line in lines.items())
        total = row.total if row.total is not None else sum(priced, Decimal(0))
        paid = sum((numbers.decimal_of(values.as_text(v)) for v in (row.paid or {}).values()), Decimal(0))
        back = (schema.REFUNDS_KIND.read(refunds).refunds or {}).values()
        refunded = sum((numbers.decimal_of(values.text(values.entries(r), "Amount")) for r in back), Decimal(0))
        shipped = order_status.units_shipped(row.status, ordered, sent)
        states[oid] = order_status.OrderState(total, paid, refunded, ordered, shipped)
    return states


def warehouses_of_split_orders(order_ids: list[str]) -> dict[str, list[str]]:
    """The warehouses each order's lines ship from, for the orders shipped from more than one (a split order: a
    tracking number per warehouse)."""
    found: dict[str, list[str]] = {}
    lines_of = schema.ORDER_KIND.attribute("lines")
    for oid, raw in zip(order_ids, get_many([schema.order_anchor(oid) for oid in order_ids], [lines_of]), strict=True):
        lines = (schema.ORDER_KIND.read(raw).lines or {}).values()
        warehouses = sorted({wid for line in lines if (wid := values.string(values.entries(line), "WarehouseId"))})
        if len(warehouses) > 1:
            found[oid] = warehouses
    return found


def customer_order_entries(*, customer_id: str, **options: Unpack[ListOptions]) -> RowsPage[Item]:
    """AV1: a customer's orders by date (their order entries: one Query)."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    limit, forward, start, dates = _checked(options)
    within = Range(*dates.bounds(schema.CUSTOMER_ORDER_PREFIX))
    within = Range(within.low or schema.CUSTOMER_ORDER_PREFIX, within.high or schema.CUSTOMER_ORDER_PREFIX + "~")
    first = schema.CUSTOMER_ORDER_PREFIX + start if start is not None else None
    found, _more = query(keys.customer(cid), limit=limit + 1, forward=forward, after=first, within=within)
    found = [r for r in found if (values.string(r, schema.SK) or "").startswith(schema.CUSTOMER_ORDER_PREFIX)]
    rows = found[:limit]
    last = (values.string(rows[-1], schema.SK) or "").removeprefix(schema.CUSTOMER_ORDER_PREFIX) if rows else ""
    more = len(found) > limit
    return RowsPage(rows, {("after" if forward else "before"): last} if more else None)


def customer_orders(*, customer_id: str, **options: Unpack[ListOptions]) -> RowsPage[OrderRow]:
    """AV1 as rows: the entries, then their summaries (status, total...)."""
    page = customer_order_entries(customer_id=customer_id, **options)
    ids = [schema.CUSTOMER_ORDER_KIND.read(r).order_id for r in page.rows]
    found = summaries(ids) if ids else []
    rows = [
        order_row(summary or entry, (values.string(entry, schema.SK) or "").removeprefix(schema.CUSTOMER_ORDER_PREFIX))
        for entry, summary in zip(page.rows, found, strict=True)
    ]
    return RowsPage(rows, page.next)


@dataclass(frozen=True)
class CategoryOrderRow(OrderRow):
    category: str = ""
    units: int = 0
    revenue: Decimal = Decimal(0)  # of the order's lines of this category


def category_orders(
    *,
    category: str,
    start: date,
    end: date,
    limit: int = 50,
    after: dict[str, Any] | None = None,
    sort: str = NEWEST,
) -> RowsPage[CategoryOrderRow]:
    """A category's orders placed in ``start``..``end`` (UTC days, both included), with their summaries."""
    name = category.strip()
    if not name or len(name) > schema.MAX_CATEGORY:
        raise InvalidInput(f"a category is 1 to {schema.MAX_CATEGORY} characters")
    options: ListOptions = {"limit": limit, "after": after, "sort": sort, "dates": DateRange(start, end)}
    limit, forward, position, dates = _checked(options)
    shards = list_shards(lambda n: schema.category_partition(name, n))
    page = list_page(shards, limit, forward=forward, after=position, within=Range(*dates.bounds()))
    entries = [schema.CATEGORY_ORDER_KIND.read(r) for r in page.rows]
    rows_summaries = summaries([e.order_id for e in entries]) if entries else []
    rows = [
        CategoryOrderRow(
            **vars(order_row({**r, **(summary or {})}, values.string(r, schema.SK) or "")),
            category=name,
            units=int(entry.units),
            revenue=entry.revenue,
        )
        for r, entry, summary in zip(page.rows, entries, rows_summaries, strict=True)
    ]
    return RowsPage(rows, page.next)


# --- buyers ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BuyerRow:
    customer_id: str
    orders: int
    name: str | None
    email: str | None


def buyer_relations(*, product_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Item]:
    """AV3: a product's buyer relations by customer id, those counting at least one order."""
    pid = keys.bare(product_id, keys.PRODUCT)
    check_limit(limit)
    position = reads.read_position(after, forward=True)
    start = schema.buyers(pid, keys.bare(position, keys.CUSTOMER))[1] if position is not None else None
    pk = schema.buyers(pid, "")[0]
    kept: list[Item] = []
    more = True
    while more and len(kept) <= limit:
        found, more = query(pk, limit=limit + 1, after=start)
        kept += [r for r in found if schema.BUYERS_KIND.read(r).orders > 0]
        start = values.string(found[-1], schema.SK) if found else None
        more = more and start is not None
    return _after_page(kept, limit, lambda r: keys.without_prefix(values.string(r, schema.SK), keys.CUSTOMER))


def product_buyers(*, product_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[BuyerRow]:
    """AV3 then AV4: distinct buyers by customer id, with their orders of the product, and their profiles."""
    page = buyer_relations(product_id=product_id, limit=limit, after=after)
    customers = [keys.without_prefix(values.string(r, schema.SK), keys.CUSTOMER) or "" for r in page.rows]
    profiles = customer_profiles(customer_ids=customers) if customers else []
    read = map(schema.PROFILE_KIND.read, profiles)
    rows = [
        BuyerRow(cid, schema.BUYERS_KIND.read(relation).orders, profile.name, profile.email)
        for cid, relation, profile in zip(customers, page.rows, read, strict=True)
    ]
    return RowsPage(rows, page.next)


def customer_profiles(*, customer_ids: list[str], attributes: list[str] | None = None) -> list[Item | None]:
    """AV4: profiles by customer id (BatchGetItem), lined up with ``customer_ids`` (None: no profile)."""
    return get_many([schema.profile(c) for c in customer_ids], attributes=attributes or list(schema.PROFILE_KIND.names))


# --- lookups ---------------------------------------------------------------------------------------------------


def payment_entries(*, transaction_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Item]:
    """AV5: the payments carrying a TransactionId (case ignored)."""
    text = transaction_id.strip() if isinstance(transaction_id, str) else ""
    if not text or len(text) > MAX_TRANSACTION_ID:
        raise InvalidInput(f"a transaction id is 1-{MAX_TRANSACTION_ID} characters")
    check_limit(limit)
    position = reads.read_position(after, forward=True)
    start = keys.order(position) if position is not None else None
    found, _more = query(schema.transaction_key(text), limit=limit + 1, after=start)
    return _after_page(found, limit, lambda r: schema.PAYMENT_KIND.read(r).order_id)


def order_id_for_transaction(*, transaction_id: str) -> str | None:
    """AV5: the order behind a payment TransactionId, or None."""
    found = payment_entries(transaction_id=transaction_id, limit=1).rows
    return schema.PAYMENT_KIND.read(found[0]).order_id or None if found else None


def email_entries(*, email: str, limit: int = 50) -> list[Item]:
    """The customers whose email is ``email`` (exact, case ignored): their search entries for it."""
    text = schema.normalized(email) if isinstance(email, str) else ""
    if "@" not in text or len(text) > keys.MAX_EMAIL:
        raise InvalidInput(f"{email!r} is not an email address")
    check_limit(limit)
    found, _more = query(schema.search_partition(text), limit=limit, begins_with=f"{text}#customer#")
    return found


def customer_id_for_email(*, email: str) -> str | None:
    """The customer with this email (the lowest id when several share it), or None."""
    found = email_entries(email=email, limit=1)
    return schema.SEARCH_KIND.read(found[0]).id or None if found else None
