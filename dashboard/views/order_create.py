"""``/orders/create/``: an order staff take (by phone, by email), placed through the same domain code as a
customer's (``shop.orders.order_place``) with its audit entry naming them; the fulfilment group and superusers."""

from __future__ import annotations

from django.http import HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_http_methods

from dashboard.actors import actor_of
from dashboard.forms.order_create import CreateOrderForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.permissions import can_fulfil, needs_fulfilment
from dashboard.responses import domain_errors
from shop import keys, order_edit, orders
from shop.errors import InvalidInput, NotFound, OutOfStock

TEMPLATE = "dashboard/order_create.html"


@require_http_methods(["GET", "POST"])
@domain_errors
def order_create(request: HtmxHttpRequest) -> HttpResponseBase:
    """GET: the form for ``?customer_id=`` and ``?products=``; POST: place it, or a 400 with what was wrong."""
    if not can_fulfil(request.user):
        return needs_fulfilment(request)
    if request.method == "GET":
        asked = [keys.bare(p, keys.PRODUCT) for p in request.GET.get("products", "").replace(" ", ",").split(",") if p]
        form = CreateOrderForm(initial={"customer_id": request.GET.get("customer_id", "")}, products=asked)
        return TemplateResponse(request, TEMPLATE, {"form": form})
    form = CreateOrderForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            order = orders.order_place(
                customer_id=data["customer_id"],
                lines=data["lines"],
                paid_by=data["reference"] if data["payment"] == "paid" else None,
                payments=[] if data["payment"] == "due" else None,
                actor=actor_of(request),
                notify=data["notify"],
                ship_to=order_edit.typed_ship_to(data["ship_to"]),
            )
        except (NotFound, InvalidInput, OutOfStock) as exc:  # the form's errors here: 400, as any bad input
            form.add_error(None, str(exc))
        else:
            return redirect("dashboard:order", order.order_id)
    return TemplateResponse(request, TEMPLATE, {"form": form}, status=400)
