"""Bulk actions on a status list (see docs/staff-work.md, "Bulk actions"). Cancelling cannot be undone, so without
``confirm=yes`` it changes nothing and answers with what cancelling would refund."""

from __future__ import annotations

from decimal import Decimal

from django.http import HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from dashboard.actors import actor_of
from dashboard.cells import DASH, Cell, Row, amount_cell, id_url, timestamp
from dashboard.forms.bulk import SLIPS, BulkForm
from dashboard.forms.lists import first_error
from dashboard.htmx import HtmxHttpRequest
from dashboard.permissions import can_fulfil, needs_fulfilment
from dashboard.responses import domain_errors, error, retry_later
from dashboard.views.orders import STEPS
from returns import services as return_services
from shop import bulk
from shop.keys import OrderStatus
from shop.lifecycle import ORDER

CONFIRMED = "yes"
UNDOABLE = frozenset({"cancel"})  # the actions that cannot be undone: confirmed first


@require_POST
@domain_errors
def orders_bulk(request: HtmxHttpRequest) -> HttpResponse:
    if not can_fulfil(request.user):
        return needs_fulfilment(request)
    form = BulkForm(request.POST)
    if not form.is_valid():
        return _refused(request, form)
    action = form.cleaned_data["action"]
    status = form.cleaned_data.get("status") or OrderStatus.PENDING
    if action == SLIPS:
        return _slips(request, form.cleaned_data["orders"])
    if action in UNDOABLE and form.cleaned_data["confirm"] != CONFIRMED:
        return _confirmation(request, form)
    outcomes = bulk.run(
        action,
        form.cleaned_data["orders"],
        actor=actor_of(request),
        carrier=form.cleaned_data["carrier"],
        tracking_numbers=form.cleaned_data["tracking_numbers"],
        warehouse_tracking=form.cleaned_data["warehouse_tracking"],
        reason=form.cleaned_data.get("reason") if action == "cancel" else None,
        change=STEPS[action][0],  # as the order page takes it: a cancel also refunds what the order paid
    )
    done, refused = sum(o.done for o in outcomes), sum(o.code == 409 for o in outcomes)
    unknown = sum(o.unknown for o in outcomes)
    context = {
        "action": action,
        "status": status,
        "offered": ORDER.allowed(status),  # the list's columns: a pending list's rows hold tracking numbers
        "outcomes": outcomes,
        "done": done,
        "refused": refused,
        "unknown": unknown,
        "others": len(outcomes) - done - refused - unknown,
        "failed": len(outcomes) - done,
    }
    template = "dashboard/bulk.html#outcomes" if request.htmx else "dashboard/bulk.html"
    response = TemplateResponse(request, template, context, status=503 if unknown else 200)
    return retry_later(response) if unknown else response


def _slips(request: HtmxHttpRequest, order_ids: list[str]) -> HttpResponse:
    """The selected orders' packing slips: their page, to which the browser goes (htmx: by ``HX-Redirect``)."""
    url = f"{reverse('dashboard:slips')}?{urlencode({'ids': ','.join(order_ids)})}"
    return HttpResponseClientRedirect(url) if request.htmx else HttpResponseRedirect(url)


def _refused(request: HtmxHttpRequest, form: BulkForm) -> HttpResponse:
    """400 with the form's reason, shown where the outcome would have been."""
    message = first_error(form)
    if request.htmx:
        return reswap(retarget(error(request, 400, message), "#bulk-summary"), "innerHTML")
    context = {
        "action": form.cleaned_data.get("action", ""),
        "status": form.cleaned_data.get("status") or OrderStatus.PENDING,
        "problem": message,
    }
    return TemplateResponse(request, "dashboard/bulk.html", context, status=400)


def _confirmation(request: HtmxHttpRequest, form: BulkForm) -> HttpResponse:
    """The selected orders now, who placed each, what cancelling refunds, and the form confirming it with a reason."""
    previews = return_services.cancel_previews(form.cleaned_data["orders"])
    rows = [_preview_row(p) for p in previews]
    context = {
        "action": form.cleaned_data["action"],
        "status": form.cleaned_data.get("status") or OrderStatus.PENDING,
        "order_ids": [p.order_id for p in previews],
        "rows": rows,
        "refund_total": sum((p.refund for p in previews), Decimal(0)),
        "form": form,
    }
    if not request.htmx:
        return TemplateResponse(request, "dashboard/bulk_confirm.html", context)
    response = TemplateResponse(request, "dashboard/bulk_confirm.html#confirm", context)
    return reswap(retarget(response, "#bulk-confirm"), "innerHTML")


def _preview_row(preview: return_services.CancelPreview) -> Row:
    order = preview.order
    if order is None:
        missing = [Cell(preview.order_id), Cell("no such order"), *[Cell(DASH)] * 4]
        return Row(missing, (("order-id", preview.order_id),))
    cells = [
        Cell(order.order_id, url=id_url("dashboard:order", order.order_id)),
        Cell(preview.customer_name or order.customer_id, url=id_url("dashboard:customer", order.customer_id)),
        Cell(timestamp(order.date) or DASH),
        Cell(order.status or "unknown"),
        amount_cell(order.total),
        amount_cell(preview.refund),
    ]
    return Row(cells, (("order-id", order.order_id),))
