"""Returns: the queue, one return and its actions, the return staff create, and an order's returns and refunds
(see docs/returns.md, "The pages"). Permissions are checked before anything is read."""

from __future__ import annotations

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
from dashboard.forms.filters import QUEUE_STATUSES, ReturnsQueueForm
from dashboard.forms.returns import (
    ActionFields,
    CreateReturnForm,
    OrderLineToReturn,
    ReceiveForm,
    RefundForm,
    RejectForm,
)
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import (
    Column,
    Listing,
    Paged,
    RowId,
    amount_column,
    link_column,
    page_columns,
    partial,
    row_of,
    text_column,
    time_column,
)
from dashboard.order_lists import CUSTOMER, NAME, STATUS
from dashboard.permissions import Allowed, can_handle_money, can_handle_returns, needs_finance, needs_returns
from dashboard.profiles import NOBODY, Profile, profiles_of
from dashboard.responses import Unanswered, domain_errors, no_answer, unanswered_raised
from dashboard.selectors import existing, read_or_reason
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
from shop.errors import InvalidInput, OrderConflict
from shop.keys import OrderStatus
from shop.order_reads import OrderCollection, order_collection
from shop.timestamps import now

ReturnListed = tuple[ReturnRow, Profile]  # a return with its customer's profile
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
    """The queue's columns; ``details``: reasons, units and values; ``closed``: when, else how long it waited."""
    customer = replace(CUSTOMER, secondary=True)
    waiting: Column[ReturnListed] = Column("waiting for", lambda r: Cell(_waiting(r[0], at)))
    if closed:
        waiting = time_column("closed", "closed", lambda r: r[0].closed)
    shown: tuple[Column[ReturnListed], ...] = (
        link_column("return", "dashboard:return", "return_id", lambda r: r[0].return_id),
        link_column("order", "dashboard:order", "order_id", lambda r: r[0].order_id),
        customer if with_customer else replace(customer, heading=None, cell=None),
        STATUS,
        time_column("requested", "requested", lambda r: r[0].requested, secondary=True),
    )
    if not details:
        return (*shown, waiting, NAME)
    more: tuple[Column[ReturnListed], ...] = (
        text_column("reasons", "reasons", lambda r: "; ".join(r[0].reasons)),
        Column("units", lambda r: _count_cell(r[0].units), "units", lambda r: r[0].units),
        amount_column("value", "value", lambda r: r[0].value),
        amount_column("received value", "received_value", lambda r: r[0].received_value, secondary=True),
    )
    return (*shown, *more, waiting, NAME)


RETURN_ID: RowId[ReturnListed] = ("return-id", lambda r: r[0].return_id)  # a return row's data-return-id


def _tabs(status: str) -> dict[str, Any]:
    return {"status": status, "statuses": QUEUE_STATUSES, "closed": status in RETURN.closing_states}


class ReturnsQueue(Listing[ReturnsQueueForm, ReturnListed]):
    """``/returns/?status=open|<status>``: the admin view's returns of that status, oldest ``Requested`` first."""

    template = "dashboard/returns.html"
    salt = "returns"
    row_class = "return-row"
    profiles = True
    row_id = RETURN_ID
    form_class = ReturnsQueueForm

    def scope(self, form: ReturnsQueueForm) -> str:
        return f"{form.cleaned_data['status']}|{form.cleaned_data['reason']}"

    def csv_columns(self, form: ReturnsQueueForm) -> tuple[Column[ReturnListed], ...]:
        """The page's columns too: a closed status's list says when each return closed, not how long it waited."""
        return queue_columns(now(), details=True, closed=form.cleaned_data["status"] in RETURN.closing_states)

    def fetch(self, form: ReturnsQueueForm, *, limit: int, after: dict[str, Any] | None) -> Paged[ReturnRow]:
        fields = form.cleaned_data
        return returns_reads.returns(status=fields["status"], reason=fields["reason"], limit=limit, after=after)

    def refused(self, form: ReturnsQueueForm) -> dict[str, Any]:
        status = form.cleaned_data.get("status") or returns_reads.OPEN
        return {"form": form, **_tabs(status), "rows": [], "refused": True}

    def filename(self, form: ReturnsQueueForm) -> str:
        return f"returns-{form.cleaned_data['status'].lower()}.csv"

    def frame(self, form: ReturnsQueueForm, *, first_page: bool) -> dict[str, Any]:
        self.columns = self.csv_columns(form)
        fields = form.cleaned_data
        return {"form": form, **_tabs(fields["status"]), "reason": fields["reason"]}


returns_queue = ReturnsQueue.view()


CUSTOMER_RETURNS = 20  # the customer page shows this many of their returns


def customer_returns(customer_id: str) -> dict[str, Any]:
    """A customer's returns for their page (the admin view's ``customer_returns``: its first page)."""
    page = returns_reads.customer_returns(customer_id=customer_id, limit=CUSTOMER_RETURNS, after=None)
    columns = queue_columns(now(), with_customer=False)
    return {
        "returns": [row_of(columns, (row, NOBODY), ((RETURN_ID[0], row.return_id),)) for row in page.rows],
        "return_columns": page_columns(columns),
        "more_returns": page.next is not None,
    }


# --- one return --------------------------------------------------------------------------------------------


def _count_cell(value: int | None) -> Cell:
    return Cell(value if value is not None else DASH, numeric=value is not None)


def _line_rows(item: ReturnItem, collection: OrderCollection | None) -> list[list[Cell]]:
    """Each line's cells, valued at the order's prices; once received, what was received, restocked and damaged."""
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
    """Each line's product -> the warehouse its shipment left from, else the one it was taken from when placed."""
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
    """The proposed warehouses and those stocking the products (a Query a line, at most ``services.MAX_LINES``)."""
    found = set(proposed)
    for line in item.lines or []:
        found.update(row.warehouse_id for row in shop_patterns.inventory_for_product(product_id=line.product_id).items)
    return sorted(found)


def _receive_form(
    item: ReturnItem, data: QueryDict | None = None, shipped_from: dict[str, str] | None = None
) -> ReceiveForm:
    shipped = shipped_from or {}
    first = next((shipped[line.product_id] for line in item.lines or [] if line.product_id in shipped), "")
    warehouses = _warehouses(item, set(shipped.values())) if "receive" in RETURN.allowed(item.status) else []
    return ReceiveForm(
        data, lines=item.lines or [], warehouses=warehouses, shipped_from=shipped, initial={"warehouse": first}
    )


def _customer(customer_id: str) -> Profile:
    """The return's customer as the admin view holds them; NOBODY (the page shows the id) when it cannot be read."""
    profiles, _why = read_or_reason(lambda: profiles_of([customer_id]))
    return (profiles or {}).get(customer_id, NOBODY)


def _return_context(
    request: HtmxHttpRequest, rid: str, posted: dict[str, forms.Form] | None = None, **extra: Any
) -> dict[str, Any]:
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


# each action's form (its URL ``returns/<id>/<action>/``, its view ``return_step``)
STEPS: dict[str, type[ActionFields]] = {
    "approve": ActionFields,
    "reject": RejectForm,
    "receive": ReceiveForm,
    "refund": RefundForm,
}


def _posted_form(action: str, rid: str, data: QueryDict) -> ActionFields:
    """The action's form as posted; a receive's has a field per line of the return (read consistently)."""
    if action != "receive":
        return STEPS[action](data)
    return _receive_form(existing(return_patterns.return_by_id(return_id=rid, consistent=True), "return", rid), data)


@require_POST
@domain_errors
def return_step(request: HtmxHttpRequest, return_id: str, action: str) -> HttpResponseBase:
    """Take ``action`` (``returns.services.return_<action>``) with the valid form's arguments."""
    user = request.user
    if action == "refund" and request.POST.get("override") and can_handle_returns(user) and not can_handle_money(user):
        return needs_finance(request)
    rid, done = return_keys.return_id(return_id), RETURN.step(action).done
    if not can_handle_returns(user):
        return needs_returns(request)
    form = _posted_form(action, rid, request.POST)
    posted: dict[str, forms.Form] = {f"{action}_form": form}

    def page(status: int, **extra: Any) -> TemplateResponse:
        context = _return_context(request, rid, posted, conflict=status != 200, **extra)
        return TemplateResponse(request, partial(request, "dashboard/return.html", "status"), context, status=status)

    if not form.is_valid():
        return page(400, message=f"Return {rid} was not {done}: see below.")
    take = getattr(services, f"return_{action}")
    try:
        with unanswered_raised():
            take(return_id=rid, actor=actor_of(request), **form.arguments())
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


# --- a return staff create ----------------------------------------------------------------------------------


def _lines_to_return(collection: OrderCollection) -> list[OrderLineToReturn]:
    """Each line with what was delivered and what is already in a return (rejected ones aside)."""
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
    """The form and, posted, an APPROVED return (``return_create``); 409 unless the order is DELIVERED."""
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
    """The order's returns and refunds and what remains refundable (two calls), or why they cannot be read."""
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
