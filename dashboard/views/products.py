"""A product's buyers: the two-phase join (AV3 then AV4)."""

from __future__ import annotations

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from adminview import selectors
from dashboard import cursors
from dashboard.responses import csv_response, domain_errors
from dashboard.views.common import (
    HtmxHttpRequest,
    csv_url,
    every_row,
    list_form,
    next_url,
    partial,
    spreadsheet_text,
)
from shop import access_patterns, keys
from shop.errors import NotFound

# --- a product's buyers (AV3 then AV4) ------------------------------------------------------------------------

BUYER_CSV_HEADER = ["customer_id", "name", "email", "orders"]


@require_GET
@domain_errors
def product_buyers(request: HtmxHttpRequest, product_id: str) -> HttpResponseBase:
    """Two-phase join: a page of distinct buyers (AV3 Query), then their profiles (AV4 BatchGetItem)."""
    pid = keys.bare(product_id, keys.PRODUCT)
    form = list_form(request)
    after = cursors.decode(form.cleaned_data["cursor"], salt="buyers", scope=pid)
    product = access_patterns.product_by_id(product_id=pid) if after is None or form.wants_csv else None
    if after is None and product is None:
        raise NotFound("product", pid)
    if form.wants_csv:
        rows = every_row(selectors.product_buyers, product_id=pid)
        return csv_response(
            f"product-{pid}-buyers.csv",
            BUYER_CSV_HEADER,
            ([r.customer_id, spreadsheet_text(r.name), spreadsheet_text(r.email), r.orders] for r in rows),
        )
    page = selectors.product_buyers(product_id=pid, limit=form.cleaned_data["limit"], after=after)
    token = cursors.encode(page.next, salt="buyers", scope=pid)
    context = {
        "product": product,
        "product_id": pid,
        "rows": page.rows,
        "next_url": next_url(request, token),
        "csv_url": csv_url(request),
        "first_page": after is None,
    }
    return TemplateResponse(request, partial(request, "dashboard/buyers.html", "rows"), context)
