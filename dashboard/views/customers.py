"""Every customer (the admin view's indexes: by name or newest first); a customer: profile (pattern 1) with totals,
orders (AV1) and favourites (``format=json``: the totals alone); invoices (pattern 15)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date
from typing import Any

from django.http import HttpResponseBase, JsonResponse

from adminview.reads import selectors
from adminview.reads import totals as totals_reads
from adminview.reads.catalogue import CustomerRow, customers
from adminview.reads.totals import CustomerTotals
from dashboard import selectors as dashboard_selectors
from dashboard.cells import Cell, payment_list
from dashboard.display import CENT, plain_amount
from dashboard.forms.filters import JSON, ORDER_FILTERS, CustomerPageForm, CustomersForm, OrderListForm
from dashboard.forms.ranges import InvoiceRangeForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import Column, Listing, Paged, amount_column, first_page_url, link_column, text_column, time_column
from dashboard.order_lists import ORDER_ID, TRACKING, Listed, order_columns, with_states
from dashboard.permissions import can_edit_customers
from dashboard.profiles import NOBODY, Profile
from dashboard.responses import json_answer
from dashboard.views.history import latest
from dashboard.views.notes import Subject, notes_context
from dashboard.views.returns import customer_returns
from shop import access_patterns, keys, notes
from shop.errors import NotFound
from shop.models import Customer, Invoice
from shop.timestamps import now


class Customers(Listing[CustomersForm, CustomerRow]):
    """Every customer, by name or newest first: one Query per write shard and one BatchGetItem a page."""

    template = "dashboard/customers.html"
    salt = "customers"
    row_class = "customer-row"
    row_id = ("customer-id", lambda r: r.customer_id)
    form_class = CustomersForm
    columns: tuple[Column[CustomerRow], ...] = (
        link_column("customer", "dashboard:customer", "customer_id", lambda r: r.customer_id),
        text_column("name", "name", lambda r: r.name),
        text_column("email", "email", lambda r: r.email, secondary=True),
    )

    def scope(self, form: CustomersForm) -> str:
        return str(form.cleaned_data["sort"])

    def fetch(self, form: CustomersForm, *, limit: int, after: dict[str, Any] | None) -> Paged[CustomerRow]:
        return customers(sort=form.cleaned_data["sort"], limit=limit, after=after)

    def frame(self, form: CustomersForm, *, first_page: bool) -> dict[str, Any]:
        return {"form": form}


customer_list = Customers.view()


def _customer_or_404(cid: str) -> Customer:
    return dashboard_selectors.existing(access_patterns.customer_by_id(customer_id=cid), "customer", cid)


class CustomerOrders(Listing[OrderListForm, Listed]):
    """A customer's page with their orders (AV1: one Query and one BatchGetItem); ``format=json``: the totals."""

    template = "dashboard/customer.html"
    salt = "customer-orders"
    row_class = "order-row"
    row_id = ORDER_ID
    form_class = CustomerPageForm
    columns = (*order_columns(with_customer=False, waited=True), TRACKING)

    def __init__(self, request: HtmxHttpRequest, customer_id: str) -> None:
        super().__init__(request)
        self.cid = keys.bare(customer_id, keys.CUSTOMER)
        self.who = NOBODY  # the CSV's name and email on every row: read once, before the rows

    def response(self) -> HttpResponseBase:
        form = CustomerPageForm(self.request.GET)
        if form.is_valid() and form.wants(JSON):
            return totals_json(self.cid)
        return super().response()

    def refused(self, form: OrderListForm) -> dict[str, Any]:
        refused = {"customer": _customer_or_404(self.cid), "customer_id": self.cid, "form": form, "refused": True}
        return refused | {"rows": [], "first_page": True}

    def scope(self, form: OrderListForm) -> str:
        return f"{self.cid}|{form.scope()}"

    def fetch(self, form: OrderListForm, *, limit: int, after: dict[str, Any] | None) -> Paged[Any]:
        sort, dates = form.cleaned_data["sort"], form.dates()
        return selectors.customer_orders(customer_id=self.cid, limit=limit, after=after, sort=sort, dates=dates)

    def join(self, rows: Sequence[Any], *, csv: bool) -> list[Listed]:
        return [(row, self.who) for row in with_states(rows)]

    def filename(self, form: OrderListForm) -> str:
        return f"customer-{self.cid}-orders.csv"

    def every_record(self, form: OrderListForm) -> Iterator[Listed]:
        self.who = Profile.of_customer(_customer_or_404(self.cid))
        return super().every_record(form)

    def frame(self, form: OrderListForm, *, first_page: bool) -> dict[str, Any]:
        cid = self.cid
        context: dict[str, Any] = {"customer": None, "customer_id": cid, "form": form, "changes": [], "favourites": []}
        if first_page:
            context |= {
                "customer": _customer_or_404(cid),
                # favourites: one begins_with Query in the customer's partition
                "favourites": access_patterns.favourites_for_customer(customer_id=cid, limit=100).items,
                "changes": latest("customer", cid),
                # totals: one Query of the customer's view partition (profile, refunded sum, order entries)
                "totals": totals_reads.customer_totals(customer_id=cid),
                # notes: one begins_with Query in the customer's partition
                **notes_context(
                    self.request, Subject("customer", cid), notes.notes_of(about="customer", entity_id=cid)
                ),
                **customer_returns(cid),
            }
        return context | {
            "sort": form.cleaned_data["sort"],
            "filtered": any(self.request.GET.get(name) for name in ORDER_FILTERS),
            "first_url": first_page_url(self.request),
            "can_edit": can_edit_customers(self.request.user),
        }


customer = CustomerOrders.view()


def totals_json(customer_id: str) -> JsonResponse:
    """The customer's totals as the view holds them (one Query): 404 for a customer it does not hold."""

    def answer() -> dict[str, Any]:
        totals = totals_reads.customer_totals(customer_id=customer_id)
        if not totals.known:
            raise NotFound("customer", customer_id)
        return totals_as_json(customer_id, totals)

    return json_answer(answer)


def totals_as_json(customer_id: str, totals: CustomerTotals) -> dict[str, Any]:
    """Amounts as decimal strings with two decimals, days as ``YYYY-MM-DD`` (null: no order)."""
    return {
        "customer_id": customer_id,
        "orders": totals.orders,
        "spent": f"{totals.spent.quantize(CENT):f}",
        "refunded": f"{totals.refunded.quantize(CENT):f}",
        "paid": f"{totals.paid.quantize(CENT):f}",
        "first_order": totals.first_order.isoformat() if totals.first_order else None,
        "last_order": totals.last_order.isoformat() if totals.last_order else None,
    }


def _payments_text(invoice: Invoice) -> str:
    return "; ".join(
        f"{p.type or '?'} {plain_amount(p.amount) or '?'}" + (f" ({p.transaction_id})" if p.transaction_id else "")
        for p in invoice.payments
    )


INVOICE_COLUMNS: tuple[Column[Invoice], ...] = (
    text_column("invoice", "invoice_id", lambda i: i.invoice_id),
    link_column("order", "dashboard:order", "order_id", lambda i: i.order_id),
    time_column("date", "date", lambda i: i.date),
    amount_column("amount", "amount", lambda i: i.amount),
    Column("payments", lambda i: Cell(payment_list(i.payments)), "payments", _payments_text),
)


class CustomerInvoices(Listing[InvoiceRangeForm, Invoice]):
    template = "dashboard/invoices.html"
    salt = "invoices"
    row_class = "invoice-row"
    row_id = ("invoice-id", lambda r: r.invoice_id)
    columns = INVOICE_COLUMNS

    def __init__(self, request: HtmxHttpRequest, customer_id: str) -> None:
        super().__init__(request)
        self.cid = keys.bare(customer_id, keys.CUSTOMER)

    def form(self) -> InvoiceRangeForm:
        return InvoiceRangeForm(self.request.GET, today=now().date())

    def refused(self, form: InvoiceRangeForm) -> dict[str, Any]:
        return {"customer_id": self.cid, "rows": [], "range_form": form, "first_page": True}

    def _range(self, form: InvoiceRangeForm) -> tuple[date, date]:
        return form.cleaned_data["start"], form.cleaned_data["end"]

    def scope(self, form: InvoiceRangeForm) -> str:
        start, end = self._range(form)
        return f"{self.cid}|{start.isoformat()}|{end.isoformat()}"

    def fetch(self, form: InvoiceRangeForm, *, limit: int, after: dict[str, Any] | None) -> Paged[Invoice]:
        start, end = self._range(form)
        return dashboard_selectors.invoices(
            customer_id=self.cid, start=start.isoformat(), end=end.isoformat(), limit=limit, after=after
        )

    def filename(self, form: InvoiceRangeForm) -> str:
        start, end = self._range(form)
        return f"customer-{self.cid}-invoices-{start}-{end}.csv"

    def every_record(self, form: InvoiceRangeForm) -> Iterator[Invoice]:
        _customer_or_404(self.cid)
        return super().every_record(form)

    def frame(self, form: InvoiceRangeForm, *, first_page: bool) -> dict[str, Any]:
        start, end = self._range(form)
        profile = _customer_or_404(self.cid) if first_page else None
        return {"customer": profile, "customer_id": self.cid, "start": start, "end": end, "range_form": form.shown()}


customer_invoices = CustomerInvoices.view()
