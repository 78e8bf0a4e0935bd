"""A customer: profile (pattern 1) with orders (AV1) and favourites; invoices (pattern 15)."""

from __future__ import annotations

import functools
import itertools
from datetime import date
from typing import Any

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from adminview.reads import selectors
from dashboard import cursors
from dashboard.cells import DASH, Cell, Row, amount_cell, id_url, payment_list, timestamp
from dashboard.display import plain_amount
from dashboard.forms import ORDER_FILTERS, InvoiceRangeForm, OrderListForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.permissions import can_edit_customers
from dashboard.profiles import Profile
from dashboard.responses import csv_response, domain_errors
from dashboard.views.common import (
    CSV_PAGE,
    ORDER_CSV_HEADER,
    csv_url,
    every_row,
    first_page_url,
    next_url,
    order_csv_row,
    order_row,
    partial,
    refused_filter,
)
from dashboard.views.history import latest
from dashboard.views.returns import customer_returns
from dynamo.paging import all_items
from shop import access_patterns, keys
from shop.errors import NotFound
from shop.models import Customer, Invoice
from shop.timestamps import now

# --- a customer: profile (pattern 1) and orders (AV1) ---------------------------------------------------------


def _customer_or_404(customer_id: str) -> Customer:
    customer = access_patterns.customer_by_id(customer_id=customer_id)
    if customer is None:
        raise NotFound("customer", keys.bare(customer_id, keys.CUSTOMER))
    return customer


@require_GET
@domain_errors
def customer(request: HtmxHttpRequest, customer_id: str) -> HttpResponseBase:
    """The profile (pattern 1), favourites and latest changes, and the customer's orders (AV1: one Query and one
    BatchGetItem of their summaries), newest or oldest first (``sort``), within a range of order dates (``from``,
    ``to``)."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    form = OrderListForm(request.GET)
    if not form.is_valid():
        refused = {"customer": _customer_or_404(cid), "customer_id": cid, "form": form, "refused": True}
        return refused_filter(request, form, "dashboard/customer.html", refused | {"rows": [], "first_page": True})
    sort, dates = form.cleaned_data["sort"], form.dates()
    scope = f"{cid}|{form.scope()}"
    after = cursors.decode(form.cleaned_data["cursor"], salt="customer-orders", scope=scope)
    if form.wants_csv:
        who = Profile.of_customer(_customer_or_404(cid))
        rows = every_row(selectors.customer_orders, customer_id=cid, sort=sort, dates=dates)
        return csv_response(f"customer-{cid}-orders.csv", ORDER_CSV_HEADER, (order_csv_row(r, who) for r in rows))
    profile = _customer_or_404(cid) if after is None else None
    # favourites: one begins_with Query in the customer's partition (first page only)
    liked = access_patterns.favourites_for_customer(customer_id=cid, limit=100).items if after is None else []
    page = selectors.customer_orders(
        customer_id=cid, limit=form.cleaned_data["limit"], after=after, sort=sort, dates=dates
    )
    token = cursors.encode(page.next, salt="customer-orders", scope=scope)
    context = {
        "customer": profile,
        "customer_id": cid,
        "form": form,
        "sort": sort,
        "filtered": any(request.GET.get(name) for name in ORDER_FILTERS),
        "rows": [order_row(row, with_customer=False, waited=True) for row in page.rows],
        "next_url": next_url(request, token),
        "csv_url": csv_url(request),
        "first_url": first_page_url(request),
        "first_page": after is None,
        "favourites": liked,
        "changes": latest("customer", cid) if after is None else [],
        "can_edit": can_edit_customers(request.user),
        **(customer_returns(cid) if after is None else {}),
    }
    return TemplateResponse(request, partial(request, "dashboard/customer.html", "rows"), context)


# --- a customer's invoices (pattern 15) -----------------------------------------------------------------------

INVOICE_CSV_HEADER = ["invoice_id", "order_id", "date", "amount", "payments"]


def _payments_text(invoice: Any) -> str:
    return "; ".join(
        f"{p.type or '?'} {plain_amount(p.amount) or '?'}" + (f" ({p.transaction_id})" if p.transaction_id else "")
        for p in invoice.payments
    )


@require_GET
@domain_errors
def customer_invoices(request: HtmxHttpRequest, customer_id: str) -> HttpResponseBase:
    """Pattern 15 (GSI2, PK c#<cid>, SK between i#<from> and i#<to>), newest first, one Query a page."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    form = InvoiceRangeForm(request.GET, today=now().date())
    if not form.is_valid():
        refused: dict[str, Any] = {"customer_id": cid, "invoices": [], "range_form": form, "first_page": True}
        return refused_filter(request, form, "dashboard/invoices.html", refused)
    start: date = form.cleaned_data["start"]
    end: date = form.cleaned_data["end"]
    scope = f"{cid}|{start.isoformat()}|{end.isoformat()}"
    start_key = cursors.decode(form.cleaned_data["cursor"], salt="invoices", scope=scope)
    invoices_in_range = functools.partial(
        access_patterns.invoices_for_customer,
        customer_id=cid,
        start=start.isoformat(),
        end=end.isoformat(),
        newest_first=True,
    )
    if form.wants_csv:
        _customer_or_404(cid)
        found = all_items(invoices_in_range, page_size=CSV_PAGE)
        first = list(itertools.islice(found, 1))  # the first page now: its errors are still a clean 4xx
        rows = (
            [
                inv.invoice_id,
                inv.order_id,
                inv.date.isoformat() if inv.date else None,
                plain_amount(inv.amount),
                _payments_text(inv),
            ]
            for inv in itertools.chain(first, found)
        )
        return csv_response(f"customer-{cid}-invoices-{start}-{end}.csv", INVOICE_CSV_HEADER, rows)
    profile = _customer_or_404(cid) if start_key is None else None
    page = invoices_in_range(limit=form.cleaned_data["limit"], start_key=start_key)
    token = cursors.encode(page.next_key, salt="invoices", scope=scope)
    context = {
        "customer": profile,
        "customer_id": cid,
        "invoices": [_invoice_row(invoice) for invoice in page.items],
        "start": start,
        "end": end,
        "range_form": form.shown(),
        "next_url": next_url(request, token),
        "csv_url": csv_url(request),
        "first_page": start_key is None,
    }
    return TemplateResponse(request, partial(request, "dashboard/invoices.html", "rows"), context)


def _invoice_row(invoice: Invoice) -> Row:
    """Invoice, order, date, amount, payments; ``data-invoice-id`` on the row."""
    cells = [
        Cell(invoice.invoice_id),
        Cell(invoice.order_id, url=id_url("dashboard:order", invoice.order_id)),
        Cell(timestamp(invoice.date) or DASH),
        amount_cell(invoice.amount),
        Cell(payment_list(invoice.payments)),
    ]
    return Row(cells, (("invoice-id", invoice.invoice_id),))
