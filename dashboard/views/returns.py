"""Returns: the queue of returns awaiting staff, oldest first (the admin view's returns reads), one return (the
returns table itself, beside its order in the shop table) with the actions its status allows, and what an order's
page shows of its returns and refunds.

Each action is a POST for the ``returns`` group and superusers (403 for anyone else, before anything is read),
through ``returns.services``: a status that no longer allows it answers 409 and changes nothing; bad input, a
warehouse the shop lacks or a refund above what remains answers 400 with the page and the error beside its field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from django import forms
from django.http import HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.timesince import timesince
from django.views.decorators.http import require_GET, require_POST

from adminview.reads import returns_reads
from adminview.reads.returns_reads import ReturnRow
from dashboard import selectors as dashboard_selectors
from dashboard.actors import actor_of
from dashboard.cells import DASH, Cell, Row, amount_cell, id_url, timestamp
from dashboard.forms.filters import QUEUE_STATUSES, ReturnsQueueForm
from dashboard.forms.returns import ReceiveForm, RefundForm, RejectForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import Column, Listing, Paged, page_columns, partial, row_of
from dashboard.permissions import can_handle_returns, needs_returns
from dashboard.responses import domain_errors, no_answer
from dashboard.selectors import read_or_reason
from dashboard.views.notes import Subject, notes_context
from dynamo.no_answer import DYNAMODB_ERRORS, did_not_answer
from returns import keys as return_keys
from returns import services
from returns.errors import RefundTooLarge, ReturnConflict, UnknownWarehouse
from returns.keys import OPEN_STATUSES
from returns.models import ReturnItem
from shop.audit import Actor
from shop.errors import InvalidInput
from shop.order_reads import OrderCollection
from shop.timestamps import now

FORMS: dict[str, type[forms.Form]] = {"reject_form": RejectForm, "receive_form": ReceiveForm, "refund_form": RefundForm}

# --- the queue ----------------------------------------------------------------------------------------------


def waited(requested: datetime | None, at: datetime) -> str:
    """How long a return has waited since it was requested (``3 days, 4 hours``), both moments UTC."""
    if requested is None:
        return DASH
    return timesince(requested.replace(tzinfo=UTC), at.replace(tzinfo=UTC))


def queue_columns(at: datetime, *, with_customer: bool = True) -> tuple[Column[ReturnRow], ...]:
    """Return, order, customer (its id; on the page when ``with_customer``), status, requested, and how long it
    has waited at ``at`` (page only)."""
    customer: Column[ReturnRow] = Column(
        "customer",
        lambda r: Cell(r.customer_id, url=id_url("dashboard:customer", r.customer_id)),
        "customer_id",
        lambda r: r.customer_id,
        secondary=True,
    )
    return (
        Column(
            "return",
            lambda r: Cell(r.return_id, url=id_url("dashboard:return", r.return_id)),
            "return_id",
            lambda r: r.return_id,
        ),
        Column(
            "order",
            lambda r: Cell(r.order_id, url=id_url("dashboard:order", r.order_id)),
            "order_id",
            lambda r: r.order_id,
        ),
        customer if with_customer else replace(customer, heading=None, cell=None),
        Column("status", lambda r: Cell(r.status or "unknown"), "status", lambda r: r.status),
        Column(
            "requested",
            lambda r: Cell(timestamp(r.requested) or DASH),
            "requested",
            lambda r: r.requested.isoformat() if r.requested else None,
            secondary=True,
        ),
        Column("waiting for", lambda r: Cell(waited(r.requested, at))),
    )


def return_data(row: ReturnRow) -> tuple[tuple[str, str], ...]:
    return (("return-id", row.return_id),)


class ReturnsQueue(Listing[ReturnsQueueForm, ReturnRow]):
    """``/returns/?status=open|<status>``: the admin view's returns of that status, oldest ``Requested`` first."""

    template = "dashboard/returns.html"
    salt = "returns"

    def __init__(self, request: HtmxHttpRequest) -> None:
        super().__init__(request)
        self.columns = queue_columns(now())

    def form(self) -> ReturnsQueueForm:
        return ReturnsQueueForm(self.request.GET)

    def scope(self, form: ReturnsQueueForm) -> str:
        return str(form.cleaned_data["status"])

    def fetch(self, form: ReturnsQueueForm, *, limit: int, after: dict[str, Any] | None) -> Paged[ReturnRow]:
        return returns_reads.returns(status=form.cleaned_data["status"], limit=limit, after=after)

    def data(self, record: ReturnRow) -> tuple[tuple[str, str], ...]:
        return return_data(record)

    def filename(self, form: ReturnsQueueForm) -> str:
        return f"returns-{form.cleaned_data['status'].lower()}.csv"

    def frame(self, form: ReturnsQueueForm, *, first_page: bool) -> dict[str, Any]:
        return {"status": form.cleaned_data["status"], "statuses": QUEUE_STATUSES}


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
        "returns": [row_of(columns, row, return_data(row)) for row in page.rows],
        "return_columns": page_columns(columns),
        "more_returns": page.next is not None,
    }


# --- one return --------------------------------------------------------------------------------------------


def _line_rows(item: ReturnItem, collection: OrderCollection | None) -> list[list[Cell]]:
    """Product, name, quantity, reason, unit price, value (the order's prices)."""
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
                Cell(line.reason or DASH),
                amount_cell(price),
                amount_cell(value),
            ]
        )
    return rows


def _suggested_warehouse(item: ReturnItem, collection: OrderCollection | None) -> str:
    """Where the returned units were taken from when the order was placed (the first line's)."""
    taken = {i.product_id: i.warehouse_id for i in collection.items} if collection is not None else {}
    return next((w for line in item.lines or [] if (w := taken.get(line.product_id))), "")


def _return_context(rid: str, posted: dict[str, forms.Form] | None = None, **extra: Any) -> dict[str, Any]:
    """The return as ``dashboard.selectors.return_details`` reads it, its lines' cells and its forms; ``posted``:
    forms as sent, with errors."""
    details = dashboard_selectors.return_details(rid)
    item, collection, money = details.item, details.collection, details.money
    value = dashboard_selectors.returned_value(details)
    shown = {
        "reject_form": RejectForm(),
        "receive_form": ReceiveForm(initial={"warehouse": _suggested_warehouse(item, collection)}),
        "refund_form": RefundForm(initial={"amount": f"{min(value, money.remaining):.2f}"}),
    }
    return {
        "item": item,
        "return_id": rid,
        "order": collection.order if collection is not None else None,
        "lines": _line_rows(item, collection),
        "money": money,
        "refund": details.refund,
        "history": details.history,
        "note_versions": details.notes,
        "waited": waited(item.requested, now()) if item.return_status in OPEN_STATUSES else None,
        **shown,
        **(posted or {}),
        **extra,
    }


@require_GET
@domain_errors
def return_page(request: HtmxHttpRequest, return_id: str) -> HttpResponseBase:
    rid = return_keys.return_id(return_id)
    context = _return_context(rid)
    context |= notes_context(request, Subject("return", rid), context["note_versions"])
    return TemplateResponse(request, "dashboard/return.html", context)


Act = Callable[[str, dict[str, Any], Actor], object]


def _return_action(
    request: HtmxHttpRequest, return_id: str, act: Act, done: str, form_name: str | None = None
) -> HttpResponseBase:
    """Run ``act`` with the form's fields; answer as the module says."""
    rid = return_keys.return_id(return_id)
    if not can_handle_returns(request.user):
        return needs_returns(request)
    form = FORMS[form_name](request.POST) if form_name else forms.Form(request.POST)
    posted = {form_name: form} if form_name else {}

    def page(status: int, **extra: Any) -> TemplateResponse:
        context = _return_context(rid, posted, conflict=status != 200, **extra)
        return TemplateResponse(request, partial(request, "dashboard/return.html", "status"), context, status=status)

    if not form.is_valid():
        return page(400, message=f"Return {rid} was not {done}: see below.")
    try:
        act(rid, form.cleaned_data, actor_of(request))
    except DYNAMODB_ERRORS as exc:
        if not did_not_answer(exc):
            raise
        message = f"DynamoDB did not answer, so return {rid} may or may not have been {done}: reload it to see."
        return no_answer(request, message, link=(reverse("dashboard:return", args=[rid]), f"Reload return {rid}"))
    except ReturnConflict as exc:
        return page(409, message=str(exc))
    except InvalidInput as exc:
        field = (
            "amount" if isinstance(exc, RefundTooLarge) else "warehouse" if isinstance(exc, UnknownWarehouse) else None
        )
        form.add_error(field, str(exc))
        return page(400, message=f"Return {rid} was not {done}: see below.")
    if not request.htmx:
        return redirect("dashboard:return", rid)
    context = _return_context(rid, message=f"Return {rid} {done}.")
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
    def act(rid: str, fields: dict[str, Any], actor: Actor) -> object:
        return services.return_receive(return_id=rid, warehouse_id=fields["warehouse"], actor=actor)

    return _return_action(request, return_id, act, "received", "receive_form")


@require_POST
@domain_errors
def return_refund(request: HtmxHttpRequest, return_id: str) -> HttpResponseBase:
    def act(rid: str, fields: dict[str, Any], actor: Actor) -> object:
        return services.return_refund(
            return_id=rid, amount=fields["amount"], reference=fields["reference"], actor=actor
        )

    return _return_action(request, return_id, act, "refunded", "refund_form")


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
    }
