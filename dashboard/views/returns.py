"""Returns: the queue of returns awaiting staff, oldest first (the admin view's returns reads), one return (the
returns table itself, beside its order in the shop table) with the actions its status allows, the return staff
create for a delivered order, and what an order's page shows of its returns and refunds.

Each action is a POST for the ``returns`` group and superusers (403 for anyone else, before anything is read),
through ``returns.services``: a status that no longer allows it answers 409 and changes nothing; bad input, a
warehouse the shop lacks or a refund above its bounds answers 400 with the page and the error beside its field.
A refund's override (beyond what came back) is for superusers and the ``finance`` group: anyone else sending one
gets 403.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from django import forms
from django.http import HttpResponseBase, QueryDict
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.timesince import timesince
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from adminview.reads import returns_reads
from adminview.reads.returns_reads import ReturnRow
from dashboard import selectors as dashboard_selectors
from dashboard.actors import actor_of
from dashboard.cells import DASH, Cell, Row, amount_cell, id_url, timestamp
from dashboard.display import plain_amount
from dashboard.forms.filters import QUEUE_STATUSES, ReturnsQueueForm
from dashboard.forms.returns import CreateReturnForm, OrderLineToReturn, ReceiveForm, RefundForm, RejectForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import Column, Listing, Paged, link_column, page_columns, partial, row_of, time_column
from dashboard.order_lists import customer_cell, with_profiles
from dashboard.permissions import Allowed, can_handle_money, can_handle_returns, needs_finance, needs_returns
from dashboard.profiles import NOBODY, Profile, profiles_of
from dashboard.responses import Unanswered, domain_errors, no_answer, unanswered_raised
from dashboard.selectors import read_or_reason
from dashboard.views.notes import Subject, notes_context
from returns import access_patterns as return_patterns
from returns import keys as return_keys
from returns import services
from returns.errors import RefundAboveReturned, RefundTooLarge, ReturnConflict, UnknownWarehouse
from returns.lifecycle import OPEN_STATUSES, RETURN
from returns.models import ReturnItem
from shop import access_patterns as shop_patterns
from shop import keys as shop_keys
from shop import order_status
from shop.audit import Actor
from shop.errors import InvalidInput, NotFound, OrderConflict
from shop.keys import OrderStatus
from shop.order_reads import OrderCollection, order_collection
from shop.timestamps import now

ReturnListed = tuple[ReturnRow, Profile]  # a return with its customer's profile
FormOf = Callable[[QueryDict], forms.Form]
FORMS: dict[str, FormOf] = {"reject_form": RejectForm, "refund_form": RefundForm}
FIELD_OF = {RefundTooLarge: "amount", RefundAboveReturned: "amount", UnknownWarehouse: "warehouse"}  # what it faults

# --- the queue ----------------------------------------------------------------------------------------------


def waited(requested: datetime | None, at: datetime) -> str:
    """How long a return has waited since it was requested (``3 days, 4 hours``), both moments UTC."""
    if requested is None:
        return DASH
    return timesince(requested.replace(tzinfo=UTC), at.replace(tzinfo=UTC))


def _waiting(row: ReturnRow, at: datetime) -> str:
    """How long an open return has waited at ``at``; how and when a closed one closed."""
    if row.status not in returns_reads.CLOSED_AT:
        return waited(row.requested, at)
    return f"{(row.status or '').lower()} {timestamp(row.closed)}".strip()


def queue_columns(
    at: datetime, *, with_customer: bool = True, details: bool = False, closed: bool = False
) -> tuple[Column[ReturnListed], ...]:
    """Return, order, customer (by name on the page when ``with_customer``; its id in the CSV), status, requested,
    with ``details`` its reasons, units, value and received value (at the prices paid), then how long it has waited
    at ``at`` (page only) or when ``closed`` when it closed, and last the customer's name (CSV only)."""
    customer: Column[ReturnListed] = Column(
        "customer",
        lambda r: customer_cell(r[0].customer_id, r[1]),
        "customer_id",
        lambda r: r[0].customer_id,
        secondary=True,
    )
    name: Column[ReturnListed] = Column(csv="customer_name", value=lambda r: r[1].name)
    waiting: Column[ReturnListed] = Column("waiting for", lambda r: Cell(_waiting(r[0], at)))
    if closed:
        waiting = time_column("closed", "closed", lambda r: r[0].closed)
    shown: tuple[Column[ReturnListed], ...] = (
        link_column("return", "dashboard:return", "return_id", lambda r: r[0].return_id),
        link_column("order", "dashboard:order", "order_id", lambda r: r[0].order_id),
        customer if with_customer else replace(customer, heading=None, cell=None),
        Column("status", lambda r: Cell(r[0].status or "unknown"), "status", lambda r: r[0].status),
        time_column("requested", "requested", lambda r: r[0].requested, secondary=True),
    )
    if not details:
        return (*shown, waiting, name)
    reasons: Column[ReturnListed] = Column(
        "reasons", lambda r: Cell("; ".join(r[0].reasons) or DASH), "reasons", lambda r: "; ".join(r[0].reasons)
    )
    units: Column[ReturnListed] = Column("units", lambda r: _count_cell(r[0].units), "units", lambda r: r[0].units)
    value: Column[ReturnListed] = Column(
        "value", lambda r: amount_cell(r[0].value), "value", lambda r: plain_amount(r[0].value)
    )
    received: Column[ReturnListed] = Column(
        "received value",
        lambda r: amount_cell(r[0].received_value),
        "received_value",
        lambda r: plain_amount(r[0].received_value),
        secondary=True,
    )
    return (*shown, reasons, units, value, received, waiting, name)


def return_data(record: ReturnListed) -> tuple[tuple[str, str], ...]:
    return (("return-id", record[0].return_id),)


def _tabs(status: str) -> dict[str, Any]:
    """The queue's status and its tabs; a closed status's list says when each closed."""
    return {"status": status, "statuses": QUEUE_STATUSES, "closed": status in RETURN.closing_states}


class ReturnsQueue(Listing[ReturnsQueueForm, ReturnListed]):
    """``/returns/?status=open|<status>``: the admin view's returns of that status, oldest ``Requested`` first."""

    template = "dashboard/returns.html"
    salt = "returns"

    def __init__(self, request: HtmxHttpRequest) -> None:
        super().__init__(request)
        self.columns = queue_columns(now(), details=True)

    def form(self) -> ReturnsQueueForm:
        return ReturnsQueueForm(self.request.GET)

    def scope(self, form: ReturnsQueueForm) -> str:
        return f"{form.cleaned_data['status']}|{form.cleaned_data['reason']}"

    def _columns(self, form: ReturnsQueueForm) -> tuple[Column[ReturnListed], ...]:
        """A closed status's list says when each return closed rather than how long it waited."""
        return queue_columns(now(), details=True, closed=form.cleaned_data["status"] in RETURN.closing_states)

    def csv_columns(self, form: ReturnsQueueForm) -> tuple[Column[ReturnListed], ...]:
        return self._columns(form)

    def fetch(self, form: ReturnsQueueForm, *, limit: int, after: dict[str, Any] | None) -> Paged[ReturnRow]:
        fields = form.cleaned_data
        return returns_reads.returns(status=fields["status"], reason=fields["reason"], limit=limit, after=after)

    def refused(self, form: ReturnsQueueForm) -> dict[str, Any]:
        status = form.cleaned_data.get("status") or returns_reads.OPEN
        return {"form": form, **_tabs(status), "rows": [], "refused": True}

    def join(self, rows: Sequence[ReturnRow]) -> list[ReturnListed]:
        return with_profiles(rows)

    def data(self, record: ReturnListed) -> tuple[tuple[str, str], ...]:
        return return_data(record)

    def filename(self, form: ReturnsQueueForm) -> str:
        return f"returns-{form.cleaned_data['status'].lower()}.csv"

    def frame(self, form: ReturnsQueueForm, *, first_page: bool) -> dict[str, Any]:
        self.columns = self._columns(form)
        fields = form.cleaned_data
        return {"form": form, **_tabs(fields["status"]), "reason": fields["reason"]}


@require_GET
@domain_errors
def returns_queue(request: HtmxHttpRequest) -> HttpResponseBase:
    return ReturnsQueue(request).response()


CUSTOMER_RETURNS = 20  # the customer page shows this many of their returns


def customer_returns(customer_id: str) -> dict[str, Any]:
    """A customer's returns for their page (the admin view's ``customer_returns``: its first page)."""
    page = returns_reads.customer_returns(customer_id=customer_id, limit=CUSTOMER_RETURNS, after=None)
    columns = queue_columns(now(), with_customer=False)
    return {
        "returns": [row_of(columns, (row, NOBODY), return_data((row, NOBODY))) for row in page.rows],
        "return_columns": page_columns(columns),
        "more_returns": page.next is not None,
    }


# --- one return --------------------------------------------------------------------------------------------


def _count_cell(value: int | None) -> Cell:
    return Cell(value if value is not None else DASH, numeric=value is not None)


def _line_rows(item: ReturnItem, collection: OrderCollection | None) -> list[list[Cell]]:
    """Product, name, quantity, reason, unit price, value (the order's prices), and once received: received,
    restocked and damaged."""
    ordered = {i.product_id: i for i in collection.items} if collection is not None else {}
    rows = []
    for line in item.lines or []:
        bought = ordered.get(line.product_id)
        price = bought.price if bought is not None else None
        value = price * line.quantity if price is not None and line.quantity else None
        rows.append(
            [
                Cell(line.product_id, url=id_url("dashboard:product", line.product_id)),
                Cell((bought.product_name if bought else None) or DASH),
                Cell(line.quantity, numeric=True),
                Cell(line.reason_words or DASH),
                amount_cell(price),
                amount_cell(value),
                _count_cell(line.received),
                _count_cell(line.restocked),
                _count_cell(line.damaged),
            ]
        )
    return rows


def _shipped_from(item: ReturnItem, collection: OrderCollection | None) -> dict[str, str]:
    """Each line's product -> the warehouse its shipment left from, else where its units were taken from when the
    order was placed."""
    if collection is None:
        return {}
    left = {s.shipment_id: s.warehouse_id for s in collection.shipments if s.warehouse_id}
    shipped = {i.product_id: left[i.shipment_id] for i in collection.shipment_items if i.shipment_id in left}
    taken = {i.product_id: i.warehouse_id for i in collection.items if i.warehouse_id}
    return {
        line.product_id: w
        for line in item.lines or []
        if (w := shipped.get(line.product_id) or taken.get(line.product_id))
    }


def _warehouses(item: ReturnItem, proposed: set[str]) -> list[str]:
    """The warehouses to choose from: those keeping stock of the return's products (one Query per line, at most
    ``services.MAX_LINES``) and the proposed ones."""
    found = set(proposed)
    for line in item.lines or []:
        found.update(row.warehouse_id for row in shop_patterns.inventory_for_product(product_id=line.product_id).items)
    return sorted(found)


def _receive_form(
    item: ReturnItem, data: QueryDict | None = None, shipped_from: dict[str, str] | None = None
) -> ReceiveForm:
    """The receive form; the warehouse above proposed as the first line's, each line its own."""
    shipped = shipped_from or {}
    first = next((shipped[line.product_id] for line in item.lines or [] if line.product_id in shipped), "")
    warehouses = _warehouses(item, set(shipped.values())) if "receive" in RETURN.allowed(item.status) else []
    return ReceiveForm(
        data, lines=item.lines or [], warehouses=warehouses, shipped_from=shipped, initial={"warehouse": first}
    )


def _customer(customer_id: str) -> Profile:
    """The return's customer as the admin view holds them, for their name; NOBODY (the page shows the id) when the
    view cannot be read, as the page needs nothing else from it."""
    profiles, _why = read_or_reason(lambda: profiles_of([customer_id]))
    return (profiles or {}).get(customer_id, NOBODY)


def _return_context(
    request: HtmxHttpRequest, rid: str, posted: dict[str, forms.Form] | None = None, **extra: Any
) -> dict[str, Any]:
    """The return as ``dashboard.selectors.return_details`` reads it, its lines' cells, the actions the user may
    take on it and its forms; ``posted``: forms as sent, with errors."""
    details = dashboard_selectors.return_details(rid)
    item, collection, money = details.item, details.collection, details.money
    returned = services.returned_value(item, collection, money)
    shown = {
        "reject_form": RejectForm(),
        "refund_form": RefundForm(initial={"amount": f"{min(returned.bound, money.remaining):.2f}"}),
    }
    if "receive_form" not in (posted or {}):
        shown["receive_form"] = _receive_form(item, shipped_from=_shipped_from(item, collection))
    return {
        "item": item,
        "customer": _customer(item.customer_id),
        "return_id": rid,
        "order": collection.order if collection is not None else None,
        "lines": _line_rows(item, collection),
        "money": money,
        "refund": details.refund,
        "history": details.history,
        "returned": returned,
        "note_versions": details.notes,
        "waited": waited(item.requested, now()) if item.return_status in OPEN_STATUSES else None,
        "closed": item.status in RETURN.closing_states,
        "actions": Allowed(request.user).takes(RETURN, item.status),
        "offered": RETURN.allowed(item.status),
        **shown,
        **(posted or {}),
        **extra,
    }


@require_GET
@domain_errors
def return_page(request: HtmxHttpRequest, return_id: str) -> HttpResponseBase:
    rid = return_keys.return_id(return_id)
    context = _return_context(request, rid)
    context |= notes_context(request, Subject("return", rid), context["note_versions"])
    return TemplateResponse(request, "dashboard/return.html", context)


Act = Callable[[str, dict[str, Any], Actor], object]


def _return_action(
    request: HtmxHttpRequest,
    return_id: str,
    act: Act,
    done: str,
    form_name: str | None = None,
    form_of: Callable[[str], forms.Form] | None = None,
) -> HttpResponseBase:
    """Run ``act`` with the form's fields (the form ``form_of(rid)`` builds, else ``FORMS[form_name]``); answer
    as the module says."""
    rid = return_keys.return_id(return_id)
    if not can_handle_returns(request.user):
        return needs_returns(request)
    if form_of is not None:
        form = form_of(rid)
    else:
        form = FORMS[form_name](request.POST) if form_name else forms.Form(request.POST)
    posted = {form_name: form} if form_name else {}

    def page(status: int, **extra: Any) -> TemplateResponse:
        context = _return_context(request, rid, posted, conflict=status != 200, **extra)
        return TemplateResponse(request, partial(request, "dashboard/return.html", "status"), context, status=status)

    if not form.is_valid():
        return page(400, message=f"Return {rid} was not {done}: see below.")
    try:
        with unanswered_raised():
            act(rid, form.cleaned_data, actor_of(request))
    except Unanswered:
        message = f"DynamoDB did not answer, so return {rid} may or may not have been {done}: reload it to see."
        return no_answer(request, message, link=(reverse("dashboard:return", args=[rid]), f"Reload return {rid}"))
    except ReturnConflict as exc:
        return page(409, message=str(exc))
    except InvalidInput as exc:
        form.add_error(FIELD_OF.get(type(exc)), str(exc))
        return page(400, message=f"Return {rid} was not {done}: see below.")
    if not request.htmx:
        return redirect("dashboard:return", rid)
    context = _return_context(request, rid, message=f"Return {rid} {done}.")
    return TemplateResponse(request, "dashboard/return.html#action_result", context)


@require_POST
@domain_errors
def return_approve(request: HtmxHttpRequest, return_id: str) -> HttpResponseBase:
    return _return_action(
        request, return_id, lambda rid, _, actor: services.return_approve(return_id=rid, actor=actor), "approved"
    )


@require_POST
@domain_errors
def return_reject(request: HtmxHttpRequest, return_id: str) -> HttpResponseBase:
    def act(rid: str, fields: dict[str, Any], actor: Actor) -> object:
        return services.return_reject(return_id=rid, reason=fields["reason"], actor=actor)

    return _return_action(request, return_id, act, "rejected", "reject_form")


@require_POST
@domain_errors
def return_receive(request: HtmxHttpRequest, return_id: str) -> HttpResponseBase:
    form: list[ReceiveForm] = []

    def form_of(rid: str) -> ReceiveForm:
        item = return_patterns.return_by_id(return_id=rid, consistent=True)
        if item is None:
            raise NotFound("return", rid)
        form.append(_receive_form(item, request.POST))
        return form[0]

    def act(rid: str, fields: dict[str, Any], actor: Actor) -> object:
        counts = form[0].counts()
        return services.return_receive(return_id=rid, warehouse_id=fields["warehouse"], counts=counts, actor=actor)

    return _return_action(request, return_id, act, "received", "receive_form", form_of)


@require_POST
@domain_errors
def return_refund(request: HtmxHttpRequest, return_id: str) -> HttpResponseBase:
    if request.POST.get("override") and can_handle_returns(request.user) and not can_handle_money(request.user):
        return needs_finance(request)

    def act(rid: str, fields: dict[str, Any], actor: Actor) -> object:
        return services.return_refund(
            return_id=rid,
            amount=fields["amount"],
            reference=fields["reference"],
            override=fields["reason"],
            actor=actor,
            notify=fields["notify"],
        )

    return _return_action(request, return_id, act, "refunded", "refund_form")


# --- a return staff create ----------------------------------------------------------------------------------


def _lines_to_return(collection: OrderCollection) -> list[OrderLineToReturn]:
    """Each line of the order with what was delivered and what is already in a return (rejected ones aside)."""
    left = services.returnable(collection)
    return [
        OrderLineToReturn(
            i.product_id, i.product_name or "", i.quantity, i.quantity - left.get(i.product_id, i.quantity)
        )
        for i in collection.items
    ]


@require_http_methods(["GET", "POST"])
@domain_errors
def return_new(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    """``/orders/<oid>/returns/new/``: the form (each line with what was delivered and what is already returned)
    and, posted, an APPROVED return through ``returns.services.return_create``, then its page. 409 unless the order
    is DELIVERED; returns group and superusers only."""
    oid = shop_keys.bare(order_id, shop_keys.ORDER)
    if not can_handle_returns(request.user):
        return needs_returns(request)
    collection = order_collection(oid)
    order = collection.order
    if order.order_status is not OrderStatus.DELIVERED:
        raise OrderConflict(
            oid, order.status, f"order {oid} is {order.status or 'unknown'}; only a delivered one is returned"
        )
    form = CreateReturnForm(request.POST if request.method == "POST" else None, lines=_lines_to_return(collection))

    def page(status: int = 200) -> TemplateResponse:
        context = {"order": order, "order_id": oid, "form": form}
        return TemplateResponse(request, "dashboard/return_new.html", context, status=status)

    if request.method != "POST":
        return page()
    if not form.is_valid():
        return page(400)
    try:
        with unanswered_raised():
            item = services.return_create(order_id=oid, lines=form.return_lines(), actor=actor_of(request))
    except Unanswered:
        message = f"DynamoDB did not answer, so a return of order {oid} may or may not have been made: see the order."
        return no_answer(request, message, link=(reverse("dashboard:order", args=[oid]), f"Order {oid}"))
    except InvalidInput as exc:
        form.add_error(None, str(exc))
        return page(400)
    return redirect("dashboard:return", item.return_id)


# --- what an order's page shows -----------------------------------------------------------------------------


def order_returns(collection: OrderCollection) -> dict[str, Any]:
    """The order's returns (GSI1 of the returns table) and refunds, and what remains refundable (its refunded
    total and its refunds, one Query): two calls. When the returns table cannot be read, the page says why instead."""
    read, problem = read_or_reason(lambda: dashboard_selectors.order_money(collection))
    if read is None:
        return {"returns_problem": problem}
    found, money = read
    return {
        "returns_read": read,  # the returns and refunds as read, for the order's timeline
        "order_returns": [
            Row(
                [
                    Cell(r.return_id, url=id_url("dashboard:return", r.return_id)),
                    Cell(timestamp(r.requested) or DASH),
                    Cell(r.status or "unknown"),
                    Cell(r.units, numeric=True),
                ],
                (("return-id", r.return_id),),
            )
            for r in found
        ],
        "order_refunds": [
            Row(
                [
                    Cell(timestamp(r.date) or DASH),
                    amount_cell(r.amount),
                    Cell(r.reference or DASH),
                    Cell(r.return_id, url=id_url("dashboard:return", r.return_id)) if r.return_id else Cell(DASH),
                ],
                (("refund-id", r.refund_id),),
            )
            for r in sorted(money.refunds, key=lambda r: r.date)
        ],
        "order_money": money,
        "order_state": order_status.order_state(collection, money.refunded),
    }
