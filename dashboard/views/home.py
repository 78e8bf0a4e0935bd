"""The start page, the top bar's jump box (ids of every kind, a customer's email) and the payment-transaction
lookup."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError
from django.core.cache import cache
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET
from pynamodb.exceptions import PynamoDBException

from adminview import selectors
from dashboard.forms import JumpForm, TransactionForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.responses import domain_errors, error
from dashboard.views.common import (
    validated,
)
from shop import access_patterns, keys
from shop.errors import NotFound

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
    """Top bar: go to an order, customer, product or warehouse by id; an invoice or a shipment to its order
    (pattern 10 / 12: one Query of GSI1); a customer by email (the admin view's email index)."""
    form = validated(JumpForm(request.GET))
    kind, value = form.cleaned_data["kind"], form.cleaned_data["id"]
    if kind in PAGES:
        return redirect(PAGES[kind], value)
    if kind == "invoice":
        invoice = access_patterns.invoice_by_id(invoice_id=value)
        if invoice is None:
            raise NotFound("invoice", value)
        return redirect("dashboard:order", invoice.order_id)
    if kind == "shipment":
        found = access_patterns.shipment_details(shipment_id=value, limit=1).items
        if not found:
            raise NotFound("shipment", value)
        return redirect("dashboard:order", keys.bare(found[0].pk, keys.ORDER))
    customer_id = selectors.customer_id_for_email(email=value)
    if customer_id is None:
        return error(request, 404, f"no customer with email {value!r}")
    return redirect("dashboard:customer", customer_id)


PAGES = {
    "customer": "dashboard:customer",
    "product": "dashboard:product",
    "order": "dashboard:order",
    "warehouse": "dashboard:warehouse",
}


@require_GET
@domain_errors
def order_by_transaction(request: HtmxHttpRequest) -> HttpResponseBase:
    """AV5: the order behind a payment transaction id (GSI3 of the admin view)."""
    form = validated(TransactionForm(request.GET))
    transaction_id = form.cleaned_data["transaction_id"]
    order_id = selectors.order_id_for_transaction(transaction_id=transaction_id)
    if order_id is None:
        return error(request, 404, f"no order with payment transaction id {transaction_id!r}")
    return redirect("dashboard:order", keys.bare(order_id, keys.ORDER))
