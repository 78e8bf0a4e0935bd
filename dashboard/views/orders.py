"""Orders: the status lists (AV2 and its siblings) with the live queue, one order (pattern 5) with ship/cancel/
deliver and its history, orders due on a date, favourites."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from django.http import HttpResponseBase, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from adminview.reads import selectors
from dashboard import selectors as dashboard_selectors
from dashboard.actors import actor_of
from dashboard.cells import DASH, Cell, amount_cell, id_url, timestamp, tracking_link
from dashboard.forms.filters import ORDER_FILTERS, DueForm, NewOrdersForm, StatusListForm
from dashboard.forms.lists import first_error
from dashboard.forms.orders import ActionForm, CancelForm, OrderRefundForm, PaymentForm, ShipForm, carrier_choices
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import Column, Listing, Paged, first_page_url, partial, this_page, validated
from dashboard.order_lists import ADDRESS, ORDER_COLUMNS, ORDER_ID, Listed, order_columns, pick_list, with_states
from dashboard.permissions import Allowed, can_fulfil, can_handle_money, needs_finance, needs_fulfilment
from dashboard.profiles import Profile, with_profiles
from dashboard.responses import Unanswered, domain_errors, json_answer, no_answer, retry_later, unanswered_raised
from dashboard.views.notes import Subject, notes_context
from dashboard.views.order_timeline import timeline_of
from dashboard.views.returns import order_returns
from returns import refunds
from returns import services as return_services
from shop import access_patterns, favourites, keys, notifications, order_status, orders, payments, tracking
from shop.errors import Busy, FavouriteConflict, InvalidInput, OrderConflict
from shop.keys import OrderStatus
from shop.lifecycle import ORDER
from shop.models import Invoice, OrderItem, Shipment, ShipmentItem
from shop.timestamps import now

NEW_ORDERS_CAP = 20  # the selector counts at most one more than this: "20+ new orders"
LIST_TEMPLATE = "dashboard/orders.html"
ORDER_TEMPLATE = "dashboard/order.html"

# --- the status lists (GSI1 of the admin view: AV2 and its siblings) and the live queue ------------------------

TABS = (*ORDER.states, selectors.ALL)  # ALL mixes statuses, so it offers no bulk action


def _live_url(status: str, newest: str) -> str:
    return f"{reverse('dashboard:orders-new')}?{urlencode({'status': status, 'newest': newest})}"


def _list_url(status: str, query: dict[str, str] | None = None) -> str:
    """A status list's page: the pending list at its own address, the others by ``?status=``."""
    if status == OrderStatus.PENDING:
        return reverse("dashboard:pending") + (f"?{urlencode(query)}" if query else "")
    return f"{reverse('dashboard:orders')}?{urlencode({'status': status, **(query or {})})}"


def _frame(request: HtmxHttpRequest, status: str, form: StatusListForm) -> dict[str, Any]:
    """What a status list shows around its rows, also when refused: the tabs (keeping the filter) and the filter."""
    valid = not form.errors
    kept = {name: request.GET[name] for name in ORDER_FILTERS if valid and request.GET.get(name)}
    return {
        "status": status,
        "every_status": status == selectors.ALL,
        "tabs": [{"status": s, "url": _list_url(s, kept), "current": s == status} for s in TABS],
        "form": form,
        "filtered": bool(kept),
        "reset_url": _list_url(status),
    }


class StatusList(Listing[StatusListForm, Listed]):
    """One Query per write shard (and status, on ``ALL``) and one BatchGetItem of the customers' names a page."""

    template = LIST_TEMPLATE
    salt = "orders"
    columns = ORDER_COLUMNS
    template_rows = True  # each row holds the bulk form's controls (a checkbox, a tracking number)
    profiles = True

    def __init__(self, request: HtmxHttpRequest, status: str | None = None) -> None:
        super().__init__(request)
        self.status = status

    def form(self) -> StatusListForm:
        query = self.request.GET.copy()
        if self.status is not None:
            query["status"] = self.status
        return StatusListForm(query)

    def refused(self, form: StatusListForm) -> dict[str, Any]:
        shown = form.cleaned_data.get("status") or self.status or OrderStatus.PENDING
        return _frame(self.request, shown, form) | {"rows": [], "first_page": True, "refused": True}

    def scope(self, form: StatusListForm) -> str:
        return f"{form.cleaned_data['status']}|{form.scope()}"

    def fetch(self, form: StatusListForm, *, limit: int, after: dict[str, Any] | None) -> Paged[Any]:
        status, sort = form.cleaned_data["status"], form.cleaned_data["sort"]
        return selectors.orders_by_status(status=status, limit=limit, after=after, sort=sort, dates=form.dates())

    def join(self, rows: Sequence[Any], *, csv: bool) -> list[Listed]:
        return with_profiles(with_states(rows), names_only=not csv)

    def shown(self, records: list[Listed]) -> list[tuple[Any, Profile, str, str]]:
        """Each record with its order's and customer's links, made by ``id_url`` rather than ``{% url %}`` per row."""
        order, customer = "dashboard:order", "dashboard:customer"
        return [(row, who, id_url(order, row.order_id), id_url(customer, row.customer_id)) for row, who in records]

    def filename(self, form: StatusListForm) -> str:
        return f"{form.cleaned_data['status'].lower()}-orders.csv"

    def csv_columns(self, form: StatusListForm) -> Sequence[Column[Listed]]:
        return ORDER_COLUMNS + (ADDRESS if form.cleaned_data["status"] == OrderStatus.PENDING else ())

    def csv(self, form: StatusListForm, records: Iterator[Listed]) -> HttpResponseBase:
        if not form.wants_lines:
            return super().csv(form, records)
        return pick_list(records)

    def frame(self, form: StatusListForm, *, first_page: bool) -> dict[str, Any]:
        return _frame(self.request, form.cleaned_data["status"], form)

    def extra(self, form: StatusListForm, page: Paged[Any]) -> dict[str, Any]:
        status, sort, dates = form.cleaned_data["status"], form.cleaned_data["sort"], form.dates()
        newest = page.rows[0].position if page.rows else ""
        actions = Allowed(self.request.user).takes(ORDER, status)
        return {
            "sort": sort,
            "actions": actions,
            # a split order ships a shipment per warehouse, each with its own tracking number
            "ship_from": selectors.warehouses_of_split_orders([row.order_id for row in page.rows])
            if "ship" in actions and page.rows
            else {},
            "first_url": first_page_url(self.request),
            "select_url": first_page_url(self.request, select="page"),
            "select_page": form.cleaned_data["select"] == "page",
            # new orders arrive at the top of a newest-first list that reaches today
            "live": sort == selectors.NEWEST and (dates.end is None or dates.end >= now().date()),
            "live_url": _live_url(status, newest),
            "tracking_max": tracking.MAX_LENGTH,
            "carrier_choices": carrier_choices(),
            # the pending list's CSV one row per order line: what the warehouse takes off the shelves
            "pick_url": this_page(self.request, cursor=None, limit=None, format="csv", lines="1")
            if status == OrderStatus.PENDING
            else None,
        }


orders_by_status = StatusList.view()


@require_GET
@domain_errors
def new_orders(request: HtmxHttpRequest) -> HttpResponseBase:
    """The live queue's poll: "N new orders - show them", from one small Query per shard."""
    form = validated(NewOrdersForm(request.GET))
    status, newest = form.cleaned_data["status"], form.cleaned_data["newest"] or ""
    context = {"status": status, "new_count": 0, "new_more": False, "live_url": _live_url(status, newest)}
    try:
        with unanswered_raised():
            count = selectors.new_orders_since(status=status, newest=newest)
    except Unanswered:
        # the queue comes back as it was, without a count, so it keeps polling: the next poll may be answered
        return retry_later(TemplateResponse(request, "dashboard/orders.html#live", context, status=503))
    context |= {"new_count": count, "new_more": count > NEW_ORDERS_CAP}
    return TemplateResponse(request, "dashboard/orders.html#live", context)


# --- one order (pattern 5) with ship / cancel / deliver ------------------------------------------------------


def _item_cells(item: OrderItem, shipped: int | None) -> list[Cell]:
    """An order line's cells but the favourite one (which holds a form); the quantity as shipped / ordered once
    part of the order has shipped."""
    product_id, price, total = item.product_id, item.price, item.line_total
    return [
        Cell(product_id, url=id_url("dashboard:buyers", product_id)),
        Cell(item.product_name or DASH),
        Cell(item.quantity if shipped is None else f"{shipped} / {item.quantity}", numeric=True),
        amount_cell(price),
        amount_cell(total),
        Cell(item.warehouse_id or DASH),
    ]


def _payment_rows(invoices: list[Invoice]) -> list[list[Cell]]:
    """One row per payment (an invoice without payments: one row saying so), the invoice's columns on each."""
    rows = []
    for invoice in invoices:
        head = [Cell(invoice.invoice_id), Cell(timestamp(invoice.date) or DASH), amount_cell(invoice.amount)]
        payments = invoice.payments
        if not payments:
            rows.append([*head, Cell("no payments"), Cell(DASH, numeric=True), Cell(DASH)])
        for p in payments:
            rows.append([*head, Cell(p.type or DASH), amount_cell(p.amount), Cell(p.transaction_id or DASH)])
    return rows


def _shipment_rows(shipments: list[Shipment], items: list[ShipmentItem]) -> list[list[Cell]]:
    products: dict[str, list[str]] = {}
    for item in items:
        products.setdefault(item.shipment_id or "", []).append(
            f"{item.product_id or '?'} \N{MULTIPLICATION SIGN} {item.quantity}"
        )
    return [
        [
            Cell(s.shipment_id),
            Cell(s.type or DASH),
            Cell(timestamp(s.date) or DASH),
            Cell(s.warehouse_id or DASH),
            Cell(s.carrier or DASH),
            Cell(tracking_link(s.carrier, s.tracking_number)),
            Cell(", ".join(products.get(s.shipment_id, [])) or DASH),
        ]
        for s in shipments
    ]


def _order_context(
    request: HtmxHttpRequest,
    collection: orders.OrderCollection,
    *,
    ship_form: ActionForm | None = None,
    cancel_form: CancelForm | None = None,
    full_page: bool | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The order page's context, its tables' cells prepared here; ``ship_form``, ``cancel_form``: as posted, with
    errors. A whole page (by default any answer but htmx's) also says who and where (``_who_and_where``)."""
    whole = full_page if full_page is not None else not request.htmx
    returned = order_returns(collection)
    sent = order_status.shipped(collection)
    part = collection.order.order_status is OrderStatus.PENDING and any(sent.values())
    left = {item.product_id: item.quantity - sent.get(item.product_id, 0) for item in collection.items}
    closed = {"cancel"} if orders.partly_shipped(collection) else set()
    return {
        "order": collection.order,
        "items": [
            (item, _item_cells(item, sent.get(item.product_id, 0) if part else None)) for item in collection.items
        ],
        "payments": _payment_rows(collection.invoices),
        "shipments": _shipment_rows(collection.shipments, collection.shipment_items),
        "history": collection.history,
        "timeline": timeline_of(collection, returned.get("returns_read")),
        **notes_context(request, Subject("order", collection.order.order_id), collection.notes),
        "can_fulfil": can_fulfil(request.user),
        "actions": [a for a in Allowed(request.user).takes(ORDER, collection.order.status) if a not in closed],
        "offered": [a for a in ORDER.allowed(collection.order.status) if a not in closed],
        "ship_form": ship_form or ShipForm(warehouses=_warehouses(collection), left=left),
        "cancel_form": cancel_form or CancelForm(),
        "notifications": collection.notifications,
        "payment_form": PaymentForm(),
        "refund_form": OrderRefundForm(),
        **returned,
        **(_who_and_where(collection) if whole else {}),
        **extra,
    }


def _order_page(
    request: HtmxHttpRequest, oid: str, part: str | None, status: int = 200, **extra: Any
) -> TemplateResponse:
    """The order read again after an action, for htmx its ``part`` alone, with ``extra`` (what the action says)."""
    template = partial(request, ORDER_TEMPLATE, part) if part else ORDER_TEMPLATE
    context = _order_context(request, orders.order_collection(oid), **extra)
    return TemplateResponse(request, template, context, status=status)


def _warehouses(collection: orders.OrderCollection) -> list[str]:
    """The warehouses the order ships from (one shipment each), in the order its shipments are made."""
    return sorted({item.warehouse_id for item in collection.items if item.warehouse_id})


def _who_and_where(collection: orders.OrderCollection) -> dict[str, Any]:
    """Who placed the order (one GetItem, pattern 1) and where it ships: its shipments' address once shipped,
    until then the one staff gave it, else the customer's now."""
    who = Profile.of_customer(access_patterns.customer_by_id(customer_id=collection.order.customer_id))
    shipped_to = next((s.address for s in collection.shipments if s.address is not None), None)
    given = collection.order.ship_to
    ship_to = shipped_to or given or who.address
    return {"who": who, "ship_to": ship_to, "shipped_to": shipped_to is not None, "given_ship_to": given is not None}


@require_GET
@domain_errors
def order(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    """The order's collection (one Query, pattern 5), its customer (one GetItem), its returns and refunds (one
    Query each); ``format=json``: its money and lines as the tables hold them now."""
    if request.GET.get("format") == "json":
        return order_json(order_id)
    collection = orders.order_collection(keys.bare(order_id, keys.ORDER))
    return TemplateResponse(request, ORDER_TEMPLATE, _order_context(request, collection, full_page=True))


def order_json(order_id: str) -> JsonResponse:
    def answer() -> dict[str, Any]:
        collection = orders.order_collection(keys.bare(order_id, keys.ORDER))
        money = refunds.refundable(collection.order.order_id, collection.invoices)
        return order_status.as_json(collection, order_status.order_state(collection, money.refunded))

    return json_answer(answer)


def _outcome_unknown(request: HtmxHttpRequest, order_id: str, what: str) -> HttpResponseBase:
    """DynamoDB did not answer a change of the order, which may have landed; trying again is safe (``no_answer``)."""
    message = f"DynamoDB did not answer, so {what}: reload the order to see before trying again."
    return no_answer(request, message, link=(reverse("dashboard:order", args=[order_id]), f"Reload order {order_id}"))


# What takes each step of ``lifecycle.ORDER`` from the order page, and the form it posts. A cancel also refunds
# what the order paid, in one transaction (``returns.services``).
STEPS: dict[str, tuple[Callable[..., Any], type[ActionForm]]] = {
    "ship": (orders.order_ship, ShipForm),
    "cancel": (return_services.order_cancel_with_refund, CancelForm),
    "deliver": (orders.order_deliver, ActionForm),
}


@require_POST
@domain_errors
def order_step(request: HtmxHttpRequest, order_id: str, action: str) -> HttpResponseBase:
    """Take ``action`` with the form's fields; a field typed wrong is a 400 with the form again, nothing written."""
    oid, (take, form_class), done = keys.bare(order_id, keys.ORDER), STEPS[action], ORDER.step(action).done
    if not can_fulfil(request.user):
        return needs_fulfilment(request)
    form = form_class(request.POST)
    if form.has_error("expected_version"):  # the hidden field: a broken or forged form, not a typo
        raise InvalidInput(first_error(form))
    if not form.is_valid():
        posted: dict[str, Any] = {f"{action}_form": form}  # shown with its errors
        message = f"Order {oid} was not {done}: see below."
        return _order_page(request, oid, "status", 400, message=message, conflict=True, **posted)
    try:
        with unanswered_raised():
            take(order_id=oid, actor=actor_of(request), **form.cleaned_data)
    except Unanswered:
        return _outcome_unknown(request, oid, f"order {oid} may or may not have been {done}")
    except OrderConflict as exc:
        return _order_page(request, oid, "status", 409, message=str(exc), conflict=True)
    if not request.htmx:
        return redirect("dashboard:order", oid)
    return _order_page(request, oid, "action_result", message=f"Order {oid} {done}.")


# --- payments and refunds outside a return (``finance``) --------------------------------------------------------


# Each money action's URL tail (``orders/<oid>/<tail>/``), its form, its service and what it does.
MONEY: dict[str, tuple[type[PaymentForm], Callable[..., Any], str]] = {
    "payments": (PaymentForm, payments.order_pay, "paid"),
    "refund": (OrderRefundForm, return_services.order_refund, "refunded"),
}


@require_POST
@domain_errors
def order_money(request: HtmxHttpRequest, order_id: str, action: str) -> HttpResponseBase:
    """Run ``action`` with the form's fields; a bad field or amount is a 400 beside its field, nothing written."""
    oid, (form_class, take, done) = keys.bare(order_id, keys.ORDER), MONEY[action]
    if not can_handle_money(request.user):
        return needs_finance(request, "take payments and make refunds")
    form = form_class(request.POST)
    status, message = 200, f"Order {oid}: {done}."
    if form.is_valid():
        try:
            with unanswered_raised():
                take(order_id=oid, actor=actor_of(request), **form.cleaned_data)
        except Unanswered:
            return _outcome_unknown(request, oid, f"order {oid} may or may not have been {done}")
        except InvalidInput as exc:
            form.add_error("amount", str(exc))
        except OrderConflict as exc:
            status, message = 409, str(exc)
        else:
            if not request.htmx:
                return redirect("dashboard:order", oid)
    if form.errors:
        status, message = 400, f"Order {oid}: nothing was {done}, see below."
    # a 400 shows the form as posted, its errors beside its fields
    posted = {"payment_form" if form_class is PaymentForm else "refund_form": form} if status == 400 else {}
    return _order_page(
        request, oid, "money_result", status, money_message=message, money_conflict=status != 200, **posted
    )


@require_POST
@domain_errors
def notification_send_again(request: HtmxHttpRequest, order_id: str, notification_id: str) -> HttpResponseBase:
    """A given-up notification back in the outbox (the fulfilment and finance groups, whose actions send them)."""
    oid = keys.bare(order_id, keys.ORDER)
    if not (can_fulfil(request.user) or can_handle_money(request.user)):
        return needs_fulfilment(request)
    try:
        notifications.send_again(order_id=oid, notification_id=notification_id)
    except OrderConflict as exc:
        return _order_page(request, oid, None, 409, full_page=True, notify_message=str(exc))
    return redirect("dashboard:order", oid)


# --- orders due on a date (DeliveryDate-index) ---------------------------------------------------------------


class DueList(Listing[DueForm, Listed]):
    template = "dashboard/due.html"
    salt = "due"
    row_class = "order-row"
    profiles = True
    row_id = ORDER_ID
    columns = order_columns(date="ordered")

    def form(self) -> DueForm:
        return DueForm(self.request.GET, today=now().date())

    def refused(self, form: DueForm) -> dict[str, Any]:
        return {"form": form, "day": None, "rows": [], "first_page": True}

    def scope(self, form: DueForm) -> str:
        return str(form.cleaned_data["day"].isoformat())

    def fetch(self, form: DueForm, *, limit: int, after: dict[str, Any] | None) -> Paged[Any]:
        return dashboard_selectors.orders_due(day=self.scope(form), limit=limit, after=after)

    def join(self, rows: Sequence[Any], *, csv: bool) -> list[Listed]:
        return with_profiles(with_states(rows), names_only=not csv)

    def filename(self, form: DueForm) -> str:
        return f"orders-due-{self.scope(form)}.csv"

    def frame(self, form: DueForm, *, first_page: bool) -> dict[str, Any]:
        return {"form": form.shown(), "day": self.scope(form)}


orders_due = DueList.view()


# --- favourites: an order item's flag and the customer's favourite, in one transaction -------------------------


@require_POST
@domain_errors
def order_favourite(request: HtmxHttpRequest, order_id: str, product_id: str, add: bool) -> HttpResponseBase:
    oid, pid = keys.bare(order_id, keys.ORDER), keys.bare(product_id, keys.PRODUCT)
    if not can_fulfil(request.user):
        return needs_fulfilment(request)
    status, message = 200, f"Product {pid} {'marked as' if add else 'no longer'} a favourite."
    try:
        with unanswered_raised():
            mark = favourites.favourite_add if add else favourites.favourite_remove
            mark(order_id=oid, product_id=pid, actor=actor_of(request))
    except (FavouriteConflict, Busy) as exc:  # shown in the items panel, with the error's own status
        status, message = exc.http_status, str(exc)
    except Unanswered:
        done = "marked as a favourite" if add else "un-marked as a favourite"
        return _outcome_unknown(request, oid, f"product {pid} may or may not have been {done}")
    if not request.htmx and status == 200:
        return redirect("dashboard:order", oid)
    return _order_page(request, oid, "items_result", status, items_message=message, items_conflict=status != 200)
