"""The start page, the top bar's jump box and the payment-transaction lookup."""

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
from dashboard.responses import domain_errors, error
from dashboard.views.common import (
    HtmxHttpRequest,
    validated,
)
from shop import keys

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
    form = validated(JumpForm(request.GET))
    target = {"customer": "dashboard:customer", "product": "dashboard:buyers", "order": "dashboard:order"}
    return redirect(target[form.cleaned_data["kind"]], form.cleaned_data["id"])


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
