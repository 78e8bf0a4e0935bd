"""``/search/?q=``: one box finds anything (``adminview.reads.search``): customers by the words of their name and the
parts of their email, products by the words of their name, orders by id, payment transaction id or tracking number,
case and accents ignored; each customer with their latest orders (htmx asks ``/search/orders/<cid>/`` for them
once the row shows, so the page's own calls stay the same however many customers it lists). The box searches as
staff type (htmx swaps the results in) and, without JavaScript, when they press Search; "load more" pages on;
``format=csv`` streams every match once, a found customer's orders as rows of kind ``order``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.http import HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from adminview.reads import search
from dashboard import cursors
from dashboard.forms.filters import SearchForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import csv_url, every_row, next_url, refused_filter
from dashboard.responses import csv_response, domain_errors
from shop import keys

SEARCH_CSV_HEADER = ["kind", "id", "name", "email"]
TEMPLATE = "dashboard/search.html"
ORDERS_SHOWN = 3  # a customer's latest orders shown beside them


def every_match(text: str) -> Iterator[search.Found]:
    """Every match, each once, a found customer followed by every one of their orders; the first page is read
    now (a customer found by two of their words may come on two pages)."""
    found = every_row(search.search, text=text)

    def once() -> Iterator[search.Found]:
        seen: set[tuple[str, str]] = set()
        for match in found:
            for row in [match, *(search.customer_orders(match) if match.kind == search.CUSTOMER else [])]:
                if (row.kind, row.id) not in seen:
                    seen.add((row.kind, row.id))
                    yield row

    return once()


@require_GET
@domain_errors
def search_page(request: HtmxHttpRequest) -> HttpResponseBase:
    """The search box and a page of matches. As staff type, htmx asks for the results alone (``#results``);
    "load more" for the next rows (``#rows``)."""
    form = SearchForm(request.GET)
    if not form.is_valid():
        return refused_filter(request, form, TEMPLATE, {"form": form, "rows": [], "first_page": True, "refused": True})
    text: str = form.cleaned_data["q"]
    if form.wants_csv:
        rows = ([m.kind, m.id, m.name, m.email] for m in every_match(text))
        return csv_response(f"search-{slugify(text) or 'results'}.csv", SEARCH_CSV_HEADER, rows)
    after = cursors.decode(form.cleaned_data["cursor"], salt="search", scope=search.term_of(text)) if text else None
    context: dict[str, Any] = {"form": form, "q": text, "rows": [], "first_page": after is None}
    if text:
        page = search.search(text=text, limit=form.cleaned_data["limit"], after=after)
        token = cursors.encode(page.next, salt="search", scope=search.term_of(text))
        context |= {"rows": page.rows, "next_url": next_url(request, token), "csv_url": csv_url(request)}
    part = "rows" if after is not None else "results"
    return TemplateResponse(request, f"{TEMPLATE}#{part}" if request.htmx else TEMPLATE, context)


@require_GET
@domain_errors
def customer_orders(request: HtmxHttpRequest, customer_id: str) -> HttpResponseBase:
    """A found customer's latest orders, for their row of the results (htmx); without htmx, their page."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    if not request.htmx:
        return redirect("dashboard:customer", cid)
    orders = search.latest_orders(customer_id=cid, count=ORDERS_SHOWN)
    return TemplateResponse(request, f"{TEMPLATE}#customer-orders", {"orders": orders})
