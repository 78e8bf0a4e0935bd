"""The dashboard's pages: thin views over shop access patterns, domain writes and admin-view selectors.

Each list page: a validated ``ListForm`` -> one page from a selector/access pattern -> the page template, or
its ``#rows`` partial for htmx "load more", or (``?format=csv``) every row streamed. The first CSV page is
fetched before the response starts, so its calls are in the cost headers and an error is still a clean 4xx.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

from botocore.exceptions import BotoCoreError
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.middleware import HtmxDetails
from pynamodb.exceptions import PynamoDBException

from dashboard import av, cursors
from dashboard.forms import ActionForm, InvoiceRangeForm, JumpForm, ListForm, TransactionForm, first_error
from dashboard.responses import csv_response, domain_errors, error
from dynamo.paging import MAX_PAGE as CSV_PAGE
from shop import access_patterns, favourites, keys, orders
from shop.errors import Busy, FavouriteConflict, NotFound, OrderConflict
from shop.timestamps import now


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _partial(request: HtmxHttpRequest, template: str, name: str) -> str:
    return f"{template}#{name}" if request.htmx else template


def _next_url(request: HttpRequest, token: str | None) -> str | None:
    """This page's URL with the other parameters kept and ``cursor`` replaced (None: no more rows)."""
    if token is None:
        return None
    query: QueryDict = request.GET.copy()
    query["cursor"] = token
    query.pop("format", None)
    return f"{request.path}?{query.urlencode()}"


def _csv_url(request: HttpRequest) -> str:
    query: QueryDict = request.GET.copy()
    query.pop("cursor", None)
    query.pop("limit", None)
    query["format"] = "csv"
    return f"{request.path}?{query.urlencode()}"


def _list_form(request: HttpRequest) -> ListForm:
    form = ListForm(request.GET)
    if not form.is_valid():
        raise ValueError(first_error(form))
    return form


def _every_row(fetch: Callable[..., Any], **kwargs: Any) -> Iterator[Any]:
    """All rows of a contract selector (``RowsPage``: ``rows``/``next``); the first page is fetched now."""
    page = fetch(limit=CSV_PAGE, after=None, **kwargs)

    def rows() -> Iterator[Any]:
        current = page
        while True:
            yield from current.rows
            if current.next is None:
                return
            current = fetch(limit=CSV_PAGE, after=current.next, **kwargs)

    return rows()


def _text(value: str | None) -> str | None:
    """A spreadsheet must not run a customer's name as a formula."""
    return "'" + value if value and value[0] in "=+-@\t\r" else value


def can_fulfil(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Ship/cancel permission: superusers and members of the ``fulfilment`` group."""
    if not user.is_authenticated or not user.is_staff:
        return False
    if user.is_superuser:
        return True
    return user.groups.filter(name=settings.FULFILMENT_GROUP).exists()  # type: ignore[union-attr]


# --- home and navigation -------------------------------------------------------------------------------


@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    """Links, and the one count that is cheap: DescribeTable's ItemCount (approximate, refreshed by DynamoDB
    about every six hours; no read capacity). Exact counts would need a Scan, which no page does."""
    return TemplateResponse(request, "dashboard/home.html", {"tables": _table_sizes()})


TABLE_SIZES_TTL = 300  # DynamoDB itself refreshes ItemCount only every ~6 hours


def _table_sizes() -> list[dict[str, Any]]:
    """Cached per process: DescribeTable is a control-plane call (rate-limited; slow on DynamoDB Local)."""
    from shop.models import ShopItem

    name = str(ShopItem.Meta.table_name)
    cached = cache.get(f"dashboard.table-size.{name}")
    if cached is not None:
        return [cached]
    try:
        described = ShopItem.describe_table()
    except (PynamoDBException, BotoCoreError):  # no table or no engine: the links still work
        return []
    size = {
        "name": described.get("TableName"),
        "items": described.get("ItemCount"),
        "bytes": described.get("TableSizeBytes"),
    }
    cache.set(f"dashboard.table-size.{name}", size, TABLE_SIZES_TTL)
    return [size]


@require_GET
@domain_errors
def jump(request: HtmxHttpRequest) -> HttpResponseBase:
    """Top bar: go to a customer, product (its buyers) or order by id."""
    form = JumpForm(request.GET)
    if not form.is_valid():
        return error(request, 400, first_error(form))
    target = {"customer": "dashboard:customer", "product": "dashboard:buyers", "order": "dashboard:order"}
    return redirect(target[form.cleaned_data["kind"]], form.cleaned_data["id"])


@require_GET
@domain_errors
def order_by_transaction(request: HtmxHttpRequest) -> HttpResponseBase:
    """AV5: the order behind a payment transaction id (GSI3 of the admin view)."""
    form = TransactionForm(request.GET)
    if not form.is_valid():
        return error(request, 400, first_error(form))
    transaction_id = form.cleaned_data["transaction_id"]
    order_id = av.order_id_for_transaction(transaction_id=transaction_id)
    if order_id is None:
        return error(request, 404, f"no order with payment transaction id {transaction_id!r}")
    return redirect("dashboard:order", keys.bare(order_id, keys.ORDER))


# --- pending orders (AV2) ----------------------------------------------------------------------------------

ORDER_CSV_HEADER = ["order_id", "customer_id", "date", "status", "total", "item_count"]


def _order_csv(row: Any) -> list[Any]:
    return [
        row.order_id,
        row.customer_id,
        row.date.isoformat() if row.date else None,
        row.status,
        row.total,
        row.item_count,
    ]


@require_GET
@domain_errors
def pending_orders(request: HtmxHttpRequest) -> HttpResponseBase:
    form = _list_form(request)
    after = cursors.decode(form.cleaned_data["cursor"], salt="pending")
    if form.wants_csv:
        return csv_response("pending-orders.csv", ORDER_CSV_HEADER, map(_order_csv, _every_row(av.pending_orders)))
    page = av.pending_orders(limit=form.cleaned_data["limit"], after=after)
    context = {
        "rows": page.rows,
        "next_url": _next_url(request, cursors.encode(page.next, salt="pending")),
        "csv_url": _csv_url(request),
        "first_page": after is None,
    }
    return TemplateResponse(request, _partial(request, "dashboard/pending.html", "rows"), context)


# --- a customer: profile (pattern 1) and orders (AV1) ---------------------------------------------------------


def _customer_or_404(customer_id: str) -> Any:
    customer = access_patterns.customer_by_id(customer_id=customer_id)
    if customer is None:
        raise NotFound("customer", keys.bare(customer_id, keys.CUSTOMER))
    return customer


@require_GET
@domain_errors
def customer(request: HtmxHttpRequest, customer_id: str) -> HttpResponseBase:
    cid = keys.bare(customer_id, keys.CUSTOMER)
    form = _list_form(request)
    after = cursors.decode(form.cleaned_data["cursor"], salt="customer-orders", scope=cid)
    if form.wants_csv:
        _customer_or_404(cid)
        rows = _every_row(av.customer_orders, customer_id=cid)
        return csv_response(f"customer-{cid}-orders.csv", ORDER_CSV_HEADER, map(_order_csv, rows))
    profile = _customer_or_404(cid) if after is None else None
    # favourites: one begins_with Query in the customer's partition (first page only)
    liked = access_patterns.favourites_for_customer(customer_id=cid, limit=100).items if after is None else []
    page = av.customer_orders(customer_id=cid, limit=form.cleaned_data["limit"], after=after)
    token = cursors.encode(page.next, salt="customer-orders", scope=cid)
    context = {
        "customer": profile,
        "customer_id": cid,
        "rows": page.rows,
        "next_url": _next_url(request, token),
        "first_page": after is None,
        "favourites": liked,
    }
    return TemplateResponse(request, _partial(request, "dashboard/customer.html", "rows"), context)


# --- a customer's invoices (pattern 15) -----------------------------------------------------------------------

INVOICE_CSV_HEADER = ["invoice_id", "order_id", "date", "amount", "payments"]


def _payments_text(invoice: Any) -> str:
    return "; ".join(
        f"{p.type or '?'} {p.amount if p.amount is not None else '?'}"
        + (f" ({p.transaction_id})" if p.transaction_id else "")
        for p in invoice.payments
    )


@require_GET
@domain_errors
def customer_invoices(request: HtmxHttpRequest, customer_id: str) -> HttpResponseBase:
    """Pattern 15 (GSI2, PK c#<cid>, SK between i#<from> and i#<to>), newest first, one Query a page."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    form = InvoiceRangeForm(request.GET, today=now().date())
    if not form.is_valid():
        return error(request, 400, first_error(form))
    start: date = form.cleaned_data["start"]
    end: date = form.cleaned_data["end"]
    scope = f"{cid}|{start.isoformat()}|{end.isoformat()}"
    start_key = cursors.decode(form.cleaned_data["cursor"], salt="invoices", scope=scope)
    query = {"customer_id": cid, "start": start.isoformat(), "end": end.isoformat(), "newest_first": True}
    if form.wants_csv:
        _customer_or_404(cid)
        first = access_patterns.invoices_for_customer(limit=CSV_PAGE, **query)

        def invoices() -> Iterator[list[Any]]:
            page = first
            while True:
                for inv in page.items:
                    yield [
                        inv.invoice_id,
                        inv.order_id,
                        inv.date.isoformat() if inv.date else None,
                        inv.amount,
                        _payments_text(inv),
                    ]
                if page.next_key is None:
                    return
                page = access_patterns.invoices_for_customer(limit=CSV_PAGE, start_key=page.next_key, **query)

        return csv_response(f"customer-{cid}-invoices-{start}-{end}.csv", INVOICE_CSV_HEADER, invoices())
    profile = _customer_or_404(cid) if start_key is None else None
    page = access_patterns.invoices_for_customer(limit=form.cleaned_data["limit"], start_key=start_key, **query)
    token = cursors.encode(page.next_key, salt="invoices", scope=scope)
    context = {
        "customer": profile,
        "customer_id": cid,
        "invoices": page.items,
        "start": start,
        "end": end,
        "next_url": _next_url(request, token),
        "csv_url": _csv_url(request),
        "first_page": start_key is None,
    }
    return TemplateResponse(request, _partial(request, "dashboard/invoices.html", "rows"), context)


# --- a product's buyers (AV3 then AV4) ------------------------------------------------------------------------

BUYER_CSV_HEADER = ["customer_id", "name", "email", "orders"]


@require_GET
@domain_errors
def product_buyers(request: HtmxHttpRequest, product_id: str) -> HttpResponseBase:
    """Two-phase join: a page of distinct buyers (AV3 Query), then their profiles (AV4 BatchGetItem)."""
    pid = keys.bare(product_id, keys.PRODUCT)
    form = _list_form(request)
    after = cursors.decode(form.cleaned_data["cursor"], salt="buyers", scope=pid)
    product = access_patterns.product_by_id(product_id=pid) if after is None or form.wants_csv else None
    if after is None and product is None:
        raise NotFound("product", pid)
    if form.wants_csv:
        rows = _every_row(av.product_buyers, product_id=pid)
        return csv_response(
            f"product-{pid}-buyers.csv",
            BUYER_CSV_HEADER,
            ([r.customer_id, _text(r.name), _text(r.email), r.orders] for r in rows),
        )
    page = av.product_buyers(product_id=pid, limit=form.cleaned_data["limit"], after=after)
    token = cursors.encode(page.next, salt="buyers", scope=pid)
    context = {
        "product": product,
        "product_id": pid,
        "rows": page.rows,
        "next_url": _next_url(request, token),
        "csv_url": _csv_url(request),
        "first_page": after is None,
    }
    return TemplateResponse(request, _partial(request, "dashboard/buyers.html", "rows"), context)


# --- one order (pattern 5) with ship / cancel --------------------------------------------------------------


def _order_context(request: HttpRequest, collection: orders.OrderCollection, **extra: Any) -> dict[str, Any]:
    by_shipment: dict[str, list[Any]] = {}
    for item in collection.shipment_items:
        by_shipment.setdefault(item.shipment_id or "", []).append(item)
    return {
        "order": collection.order,
        "items": collection.items,
        "invoices": collection.invoices,
        "shipments": [(s, by_shipment.get(s.shipment_id, [])) for s in collection.shipments],
        "can_fulfil": can_fulfil(request.user),
        **extra,
    }


@require_GET
@domain_errors
def order(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    """The order's whole item collection: one Query on PK=o#<oid> (pattern 5)."""
    collection = orders.order_collection(keys.bare(order_id, keys.ORDER))
    return TemplateResponse(request, "dashboard/order.html", _order_context(request, collection))


def _needs_fulfilment(request: HttpRequest) -> HttpResponse:
    return error(request, 403, f"you need to be in the '{settings.FULFILMENT_GROUP}' group to change orders")


def _order_action(request: HtmxHttpRequest, order_id: str, action: Callable[..., Any], done: str) -> HttpResponseBase:
    oid = keys.bare(order_id, keys.ORDER)
    if not can_fulfil(request.user):
        return _needs_fulfilment(request)
    form = ActionForm(request.POST)
    if not form.is_valid():
        return error(request, 400, first_error(form))
    try:
        action(order_id=oid, expected_version=form.cleaned_data["expected_version"])
    except OrderConflict as exc:
        collection = orders.order_collection(oid)
        context = _order_context(request, collection, message=str(exc), conflict=True)
        return TemplateResponse(request, _partial(request, "dashboard/order.html", "status"), context, status=409)
    if not request.htmx:
        return redirect("dashboard:order", oid)
    context = _order_context(request, orders.order_collection(oid), message=f"Order {oid} {done}.")
    return TemplateResponse(request, "dashboard/order.html#action_result", context)


@require_POST
@domain_errors
def order_ship(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    return _order_action(request, order_id, orders.order_ship, "shipped")


@require_POST
@domain_errors
def order_cancel(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    return _order_action(request, order_id, orders.order_cancel, "cancelled")


# --- orders due on a date (DeliveryDate-index) ---------------------------------------------------------------


@require_GET
@domain_errors
def orders_due(request: HtmxHttpRequest) -> HttpResponseBase:
    """Orders expected to be delivered on ``?date=YYYY-MM-DD`` (default today): one Query on DeliveryDate-index."""
    form = _list_form(request)
    day = (request.GET.get("date") or now().date().isoformat()).strip()
    start_key = cursors.decode(form.cleaned_data["cursor"], salt="due", scope=day)
    page = access_patterns.orders_due_on(date=day, limit=form.cleaned_data["limit"], start_key=start_key)
    token = cursors.encode(page.next_key, salt="due", scope=day)
    context = {"day": day, "rows": page.items, "next_url": _next_url(request, token), "first_page": start_key is None}
    return TemplateResponse(request, _partial(request, "dashboard/due.html", "rows"), context)


# --- favourites: an order item's flag and the customer's favourite, in one transaction -------------------------


def _favourite_action(request: HtmxHttpRequest, order_id: str, product_id: str, add: bool) -> HttpResponseBase:
    oid, pid = keys.bare(order_id, keys.ORDER), keys.bare(product_id, keys.PRODUCT)
    if not can_fulfil(request.user):
        return _needs_fulfilment(request)
    status, message = 200, f"Product {pid} {'marked as' if add else 'no longer'} a favourite."
    try:
        if add:
            favourites.favourite_add(order_id=oid, product_id=pid)
        else:
            favourites.favourite_remove(order_id=oid, product_id=pid)
    except FavouriteConflict as exc:
        status, message = 409, str(exc)
    except Busy as exc:
        status, message = 503, str(exc)
    if not request.htmx and status == 200:
        return redirect("dashboard:order", oid)
    context = _order_context(request, orders.order_collection(oid), items_message=message, items_conflict=status != 200)
    return TemplateResponse(request, _partial(request, "dashboard/order.html", "items"), context, status=status)


@require_POST
@domain_errors
def order_favourite(request: HtmxHttpRequest, order_id: str, product_id: str) -> HttpResponseBase:
    return _favourite_action(request, order_id, product_id, add=True)


@require_POST
@domain_errors
def order_unfavourite(request: HtmxHttpRequest, order_id: str, product_id: str) -> HttpResponseBase:
    return _favourite_action(request, order_id, product_id, add=False)
