"""``/search/?q=``: one box finds customers, products and orders (``adminview.reads.search``). Each customer's
latest orders come by htmx once the row shows, so the page's own calls stay the same however many it lists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.http import HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from adminview.reads import search
from dashboard.forms.filters import SearchForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import Listing, Paged, csv_fields
from dashboard.responses import domain_errors
from dashboard.selectors import KeyPage
from shop import keys

TEMPLATE = "dashboard/search.html"
ORDERS_SHOWN = 3  # a customer's latest orders shown beside them


class Search(Listing[SearchForm, search.Found]):
    """The search box and a page of matches; htmx asks for the results alone (``#results``) or the next rows (a
    customer found by two of their words may come on two pages, the CSV has each once)."""

    template = TEMPLATE
    salt = "search"
    form_class = SearchForm
    template_rows = True
    columns = csv_fields("kind", "id", "name", "email")

    def refused(self, form: SearchForm) -> dict[str, Any]:
        return {"form": form, "rows": [], "first_page": True, "refused": True}

    def scope(self, form: SearchForm) -> str:
        text: str = form.cleaned_data["q"]
        return search.term_of(text) if text else ""

    def fetch(self, form: SearchForm, *, limit: int, after: dict[str, Any] | None) -> Paged[search.Found]:
        text: str = form.cleaned_data["q"]
        return search.search(text=text, limit=limit, after=after) if text else KeyPage([], None)

    def filename(self, form: SearchForm) -> str:
        return f"search-{slugify(form.cleaned_data['q']) or 'results'}.csv"

    def frame(self, form: SearchForm, *, first_page: bool) -> dict[str, Any]:
        return {"form": form, "q": form.cleaned_data["q"]}

    def part(self, after: dict[str, Any] | None) -> str:
        return f"{TEMPLATE}#{'rows' if after is not None else 'results'}"

    def every_record(self, form: SearchForm) -> Iterator[search.Found]:
        found = super().every_record(form)

        def once() -> Iterator[search.Found]:
            seen: set[tuple[str, str]] = set()
            for match in found:
                for row in [match, *(search.customer_orders(match) if match.kind == search.CUSTOMER else [])]:
                    if (row.kind, row.id) not in seen:
                        seen.add((row.kind, row.id))
                        yield row

        return once()


search_page = Search.view()


@require_GET
@domain_errors
def customer_orders(request: HtmxHttpRequest, customer_id: str) -> HttpResponseBase:
    """A found customer's latest orders, for their row of the results (htmx); without htmx, their page."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    if not request.htmx:
        return redirect("dashboard:customer", cid)
    orders = search.latest_orders(customer_id=cid, count=ORDERS_SHOWN)
    return TemplateResponse(request, f"{TEMPLATE}#customer-orders", {"orders": orders})
