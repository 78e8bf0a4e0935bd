"""A product: its page (pattern 2, its stock, pattern 4, its orders in a date range, pattern 9) and its buyers
(the two-phase join, AV3 then AV4)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

from django.http import HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from adminview.reads import number_reads, selectors
from dashboard import figure_charts
from dashboard.cells import DASH, Cell, amount_cell, id_url, timestamp
from dashboard.display import plain_amount
from dashboard.forms.lists import ListForm
from dashboard.forms.ranges import InvoiceRangeForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import Column, Listing, Paged, link_column, refused_filter, text_column
from dashboard.order_lists import Listed, customer_cell
from dashboard.permissions import can_edit_catalogue
from dashboard.profiles import NOBODY, with_profiles
from dashboard.responses import csv_response, domain_errors
from dashboard.selectors import existing, read_or_reason
from dashboard.views.history import latest
from dashboard.views.sections import LIST, Section, key_cell, sections_response
from shop import access_patterns, keys
from shop.errors import InvalidInput
from shop.models import Product
from shop.pattern_registry import PATTERNS
from shop.timestamps import InvalidDate, now, parse_ts


def product_sections(product_id: str, start: date, end: date) -> list[Section]:
    return [
        Section(
            "stock",
            "Stock in every warehouse",
            PATTERNS["getProductInventoryByProductId"],
            {"product_id": product_id},
            (
                Column("warehouse", lambda i: key_cell(i.sk)),
                Column("quantity", lambda i: Cell(i.quantity, numeric=True)),
            ),
        ),
        Section(
            "orders",
            f"Order items from {start.isoformat()} to {end.isoformat()}, newest first",
            PATTERNS["getOrderByProductIdForDateRange"],
            {"product_id": product_id, "start": start.isoformat(), "end": end.isoformat()},
            (
                Column("order", lambda r: key_cell(r[0].pk)),
                Column("date", lambda r: Cell(timestamp(_ordered_at(r[0])) or DASH)),
                Column("customer", _buyer_cell),
                Column("quantity", lambda r: Cell(r[0].quantity, numeric=True)),
                Column("price", lambda r: amount_cell(r[0].price), secondary=True),
            ),
            {"newest_first": True},
            join=_with_buyers,
        ),
    ]


def _ordered_at(item: Any) -> datetime | None:
    """When an order item was ordered: its ``GSI1-SK`` as stored (None when it is not a timestamp)."""
    try:
        return parse_ts(item.date) if item.date else None
    except InvalidDate:
        return None


def _with_buyers(items: list[Any]) -> list[Listed]:
    """Each order item with its customer's profile (one BatchGetItem a page); by id when the view cannot be read."""
    named, _why = read_or_reason(lambda: with_profiles(items))
    return named if named is not None else [(i, NOBODY) for i in items]


def _buyer_cell(record: Listed) -> Cell:
    customer_id = record[0].customer_id
    return customer_cell(customer_id, record[1]) if customer_id else Cell(DASH)


MONTHS = "months"  # ?list=months&format=csv: the units sold per month, as the page's chart shows them
MONTHS_HEADER = ["month", "units", "revenue"]


@require_GET
@domain_errors
def product(request: HtmxHttpRequest, product_id: str) -> HttpResponseBase:
    """The product (GetItem), its units sold per month (one Query per counter shard) and returned, then each
    list's first page: stock (pattern 4) and orders in ``from``..``to`` (pattern 9, default the last 365 days)."""
    pid = keys.bare(product_id, keys.PRODUCT)
    form = InvoiceRangeForm(request.GET, today=now().date())
    if not form.is_valid():
        return _refused_range(request, form, pid)
    start: date = form.cleaned_data["start"]
    end: date = form.cleaned_data["end"]
    if request.GET.get(LIST) == MONTHS:
        if not form.wants_csv:
            raise InvalidInput("the page shows every month; list=months is its CSV: add format=csv")
        months = figure_charts.months_filled(number_reads.product_months(product_id=pid))
        return csv_response(
            f"product-{pid}-months.csv", MONTHS_HEADER, ([m.month, m.units, plain_amount(m.revenue)] for m in months)
        )
    context: dict[str, object] = {"product_id": pid, "start": start, "end": end, "range_form": form.shown()}
    one_list = sections_response(request, product_sections(pid, start, end), context)
    if one_list is not None:
        return one_list
    found = existing(access_patterns.product_by_id(product_id=pid), "product", pid)
    sold, problem = read_or_reason(lambda: number_reads.product_months(product_id=pid))
    months = figure_charts.months_filled(sold or [])
    returned, returns_problem = read_or_reason(lambda: number_reads.returned(product_id=pid))
    context |= {
        "product": found,
        "changes": latest("product", pid),
        "can_edit": can_edit_catalogue(request.user),
        "months": months,
        "months_problem": problem,
        "months_chart": figure_charts.months_chart(months),
        "months_csv_url": f"{id_url('dashboard:product', pid)}?{LIST}={MONTHS}&format=csv",
        "return_rate": figure_charts.return_rate(returned, months) if sold is not None else None,
        "returns_problem": returns_problem,
    }
    if context["can_edit"]:
        context["stock_rows"] = stock_rows(context)
    return TemplateResponse(request, "dashboard/product.html", context)


def _refused_range(request: HtmxHttpRequest, form: InvoiceRangeForm, pid: str) -> HttpResponseBase:
    """A range the page cannot use: the product (one GetItem) and the range form with its errors, no lists."""
    found = existing(access_patterns.product_by_id(product_id=pid), "product", pid)
    context = {"product_id": pid, "product": found, "range_form": form, "refused": True}
    return refused_filter(request, form, "dashboard/product.html", context)


def stock_rows(context: dict[str, object]) -> list[tuple[str, str]]:
    """(warehouse id, quantity) of the stock list's first page, for links to each edit form (no further read)."""
    sections = context.get("sections")
    rows = sections[0]["rows"] if isinstance(sections, list) and sections else []
    return [(str(row.cells[0].text), str(row.cells[1].text)) for row in rows]


@require_GET
@domain_errors
def stock_for_warehouse(request: HtmxHttpRequest, product_id: str) -> HttpResponseBase:
    """The product page's "stock in warehouse ..." box: to that stock row's form (``?warehouse_id=``)."""
    pid = keys.bare(product_id, keys.PRODUCT)
    wid = keys.bare(request.GET.get("warehouse_id", ""), keys.WAREHOUSE)
    return redirect("dashboard:stock-edit", pid, wid)


class Buyers(Listing[ListForm, selectors.BuyerRow]):
    """Two-phase join: a page of distinct buyers (AV3 Query), then their profiles (AV4 BatchGetItem)."""

    template = "dashboard/buyers.html"
    salt = "buyers"
    row_class = "buyer-row"
    row_id = ("customer-id", lambda r: r.customer_id)
    columns: tuple[Column[selectors.BuyerRow], ...] = (
        link_column("customer", "dashboard:customer", "customer_id", lambda r: r.customer_id),
        text_column("name", "name", lambda r: r.name, empty="(no profile)"),
        text_column("email", "email", lambda r: r.email),
        text_column("orders", "orders", lambda r: r.orders, numeric=True),
    )

    def __init__(self, request: HtmxHttpRequest, product_id: str) -> None:
        super().__init__(request)
        self.pid = keys.bare(product_id, keys.PRODUCT)

    def scope(self, form: ListForm) -> str:
        return self.pid

    def fetch(self, form: ListForm, *, limit: int, after: dict[str, Any] | None) -> Paged[selectors.BuyerRow]:
        return selectors.product_buyers(product_id=self.pid, limit=limit, after=after)

    def filename(self, form: ListForm) -> str:
        return f"product-{self.pid}-buyers.csv"

    def _product(self) -> Product:
        return existing(access_patterns.product_by_id(product_id=self.pid), "product", self.pid)

    def frame(self, form: ListForm, *, first_page: bool) -> dict[str, Any]:
        return {"product_id": self.pid, "product": self._product() if first_page else None}

    def every_record(self, form: ListForm) -> Iterator[selectors.BuyerRow]:
        self._product()  # an unknown product is a 404 before any buyer is read
        return super().every_record(form)


product_buyers = Buyers.view()
