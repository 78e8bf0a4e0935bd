"""``/orders/<oid>/edit/``: a pending order's lines and ship-to, changed in one transaction with its stock, total
and a refund of what was paid above the new total (``returns.services.order_edit_with_refund``)."""

from __future__ import annotations

from django.http import HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_http_methods

from dashboard.actors import actor_of
from dashboard.forms.order_create import EditOrderForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.permissions import can_fulfil, needs_fulfilment
from dashboard.responses import domain_errors
from returns import services as return_services
from shop import keys, orders
from shop.errors import InvalidInput, OrderConflict, OutOfStock
from shop.keys import OrderStatus
from shop.order_reads import ship_to, ship_to_fields

TEMPLATE = "dashboard/order_edit.html"


@require_http_methods(["GET", "POST"])
@domain_errors
def order_edit(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    """GET: the form; POST: the edit, then the order; 400 for bad input, 409 unless still PENDING and unchanged."""
    oid = keys.bare(order_id, keys.ORDER)
    if not can_fulfil(request.user):
        return needs_fulfilment(request)
    collection = orders.order_collection(oid)
    lines = {item.product_id: item.quantity for item in collection.items}
    context = {"order": collection.order, "items": collection.items}
    if collection.order.order_status is not OrderStatus.PENDING:
        context |= {
            "form": None,
            "message": f"order {oid} is {collection.order.status}: only a pending order is edited",
        }
        return TemplateResponse(request, TEMPLATE, context, status=409)
    address = ship_to_fields(ship_to(collection.order))
    if request.method == "GET":
        form = EditOrderForm(lines=lines, ship_to=address, initial={"expected_version": collection.order.version})
        return TemplateResponse(request, TEMPLATE, context | {"form": form})
    form = EditOrderForm(request.POST, lines=lines, ship_to=address)
    status = 400
    if form.is_valid():
        try:
            return_services.order_edit_with_refund(order_id=oid, actor=actor_of(request), **form.cleaned_data)
        except (InvalidInput, OutOfStock) as exc:
            form.add_error(None, str(exc))
        except OrderConflict as exc:
            form.add_error(None, str(exc))
            status = 409
        else:
            return redirect("dashboard:order", oid)
    return TemplateResponse(request, TEMPLATE, context | {"form": form}, status=status)
