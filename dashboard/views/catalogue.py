"""``/catalogue/``: every product (id, name, price, category, description) by id, from the admin view's catalogue
index (``adminview.reads.catalogue``: one Query per write shard a page, never a Scan); ``?format=csv`` every row."""

from __future__ import annotations

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from adminview.reads.catalogue import CatalogueRow, catalogue
from dashboard import cursors
from dashboard.display import plain_amount
from dashboard.htmx import HtmxHttpRequest
from dashboard.responses import csv_response, domain_errors
from dashboard.views.common import csv_url, every_row, list_form, next_url, partial

CATALOGUE_CSV_HEADER = ["product_id", "name", "price", "category", "description"]


def catalogue_csv_row(row: CatalogueRow) -> list[object]:
    return [
        row.product_id,
        row.name,
        plain_amount(row.price),
        row.category,
        row.description,
    ]


@require_GET
@domain_errors
def catalogue_page(request: HtmxHttpRequest) -> HttpResponseBase:
    form = list_form(request)
    after = cursors.decode(form.cleaned_data["cursor"], salt="catalogue")
    if form.wants_csv:
        return csv_response("catalogue.csv", CATALOGUE_CSV_HEADER, map(catalogue_csv_row, every_row(catalogue)))
    page = catalogue(limit=form.cleaned_data["limit"], after=after)
    context = {
        "rows": page.rows,
        "next_url": next_url(request, cursors.encode(page.next, salt="catalogue")),
        "csv_url": csv_url(request),
        "first_page": after is None,
    }
    return TemplateResponse(request, partial(request, "dashboard/catalogue.html", "rows"), context)
