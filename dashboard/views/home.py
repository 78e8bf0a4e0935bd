"""The start page (the numbers at a glance, then links), the top bar's jump box (ids of every kind, a customer's
email) and the payment-transaction lookup."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from botocore.exceptions import BotoCoreError
from django.core.cache import cache
from django.http import HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET
from pynamodb.exceptions import PynamoDBException

from adminview.core import schema
from adminview.reads import number_reads, search, selectors
from adminview.sync import sync_store
from dashboard import figure_charts
from dashboard.forms.lookups import JumpForm, TransactionForm
from dashboard.forms.ranges import DEFAULT_CHART_DAYS, RangeForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import refused_filter, validated
from dashboard.permissions import can_operate
from dashboard.range_pages import range_context
from dashboard.responses import domain_errors, error
from dashboard.selectors import existing, read_or_reason
from dashboard.views.stats import categories_context, daily_context
from shop import access_patterns, keys
from shop.errors import InvalidInput
from shop.timestamps import now

HOME_PERIODS = (("Today", 1), ("Last 7 days", 7), ("Last 30 days", 30))


@require_GET
@domain_errors
def home(request: HtmxHttpRequest) -> HttpResponseBase:
    """The numbers staff open on, then links; when the numbers cannot be read (no admin view yet) the links stay.
    Operators see DescribeTable's ItemCount: approximate but free, where exact counts would need a Scan."""
    today = now().date()
    form = RangeForm(request.GET, today=today, default_days=DEFAULT_CHART_DAYS)
    valid = form.is_valid()
    tables = _table_sizes() if can_operate(request.user) else []  # the tables' sizes: for operators
    context: dict[str, Any] = {"tables": tables, **range_context(request, form, today)}
    if not valid:
        return refused_filter(request, form, "dashboard/home.html", context)
    start, end = form.cleaned_data["start"], form.cleaned_data["end"]
    numbers, problem = read_or_reason(lambda: _numbers(start, end, today))
    if numbers is None:
        context["numbers_problem"] = problem
        return TemplateResponse(request, "dashboard/home.html", context)
    periods = figure_charts.periods(numbers.recent, today, HOME_PERIODS)
    context |= {
        "counts": numbers.counts,
        "listed": schema.LISTED_STATUSES,
        "periods": figure_charts.with_refunds(periods, numbers.refunds, today),
        "dead_letters": numbers.dead_letters,
        **daily_context(numbers.days, start, end),
        **categories_context(numbers.categories, start, end),
    }
    return TemplateResponse(request, "dashboard/home.html", context)


@dataclass(frozen=True)
class HomeNumbers:
    counts: dict[str, int]  # orders in each status now
    recent: list[number_reads.DayFigures]  # the last 30 days up to today
    refunds: list[number_reads.RefundDay]  # the same days' refunds
    days: list[number_reads.DayFigures]  # the charts' range
    categories: list[number_reads.CategoryFigures]  # the charts' range
    dead_letters: int


def _numbers(start: date, end: date, today: date) -> HomeNumbers:
    days, categories = number_reads.daily_and_by_category(start=start, end=end)
    first = today - timedelta(days=HOME_PERIODS[-1][1] - 1)
    return HomeNumbers(
        counts=number_reads.status_counts(),
        recent=number_reads.daily(start=first, end=today),
        refunds=number_reads.refunds_daily(start=first, end=today),
        days=days,
        categories=categories,
        dead_letters=sync_store.dead_letter_count(),
    )


TABLE_SIZES_TTL = 300  # DynamoDB itself refreshes ItemCount only every ~6 hours
TABLE_SIZE = {"name": "TableName", "items": "ItemCount", "bytes": "TableSizeBytes"}  # DescribeTable's, by our name


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
    size = {name: described.get(attribute) for name, attribute in TABLE_SIZE.items()}
    cache.set(f"dashboard.table-size.{name}", size, TABLE_SIZES_TTL)
    return [size]


@require_GET
@domain_errors
def jump(request: HtmxHttpRequest) -> HttpResponseBase:
    """Top bar: text alone goes to what it names (``_found``); with a ``kind``, to that page by id (an invoice or a
    shipment: its order, one Query of GSI1; an email: its customer); a name or a partial email to the search."""
    form = validated(JumpForm(request.GET))
    kind, value = form.cleaned_data["kind"], form.cleaned_data["id"]
    if not kind:
        return _found(value, email=form.cleaned_data["email"])
    if form.cleaned_data["search"]:
        return _search_page(value)
    if kind in PAGES:
        return redirect(f"dashboard:{kind}", value)
    if kind == "invoice":
        invoice = existing(access_patterns.invoice_by_id(invoice_id=value), "invoice", value)
        return redirect("dashboard:order", invoice.order_id)
    if kind == "shipment":
        shipped = access_patterns.shipment_details(shipment_id=value, limit=1).items
        shipment = existing(next(iter(shipped), None), "shipment", value)
        return redirect("dashboard:order", keys.bare(shipment.pk, keys.ORDER))
    customer_id = selectors.customer_id_for_email(email=value)
    if customer_id is None:
        return error(request, 404, f"no customer with email {value!r}")
    return redirect("dashboard:customer", customer_id)


def _search_page(text: str) -> HttpResponseBase:
    return redirect(f"{reverse('dashboard:search')}?{urlencode({'q': text})}")


def _found(text: str, *, email: bool) -> HttpResponseBase:
    """The one thing the text names (an email its customer, digits their order, a tracking number or transaction
    id its order, words the one customer or product they match), else the search page, which lists them."""
    if email and (customer_id := selectors.customer_id_for_email(email=text)) is not None:
        return redirect("dashboard:customer", customer_id)
    try:
        found = search.search(text=text, limit=2).rows
    except InvalidInput:  # too short to search: the search page says why
        return _search_page(text)
    named = [f for f in found if f.kind == search.ORDER and f.id == text] if text.isdigit() else []
    if len(named) == 1 or len(found) == 1:
        match = (named or found)[0]
        return redirect(f"dashboard:{match.kind}", match.id)  # search.KINDS are pages' names
    return _search_page(text)


PAGES = ("customer", "product", "order", "warehouse")  # a kind whose id is its page's: dashboard:<kind>


@require_GET
@domain_errors
def order_by_transaction(request: HtmxHttpRequest) -> HttpResponseBase:
    """AV5: the order behind a payment transaction id (the admin view's payment entries)."""
    form = validated(TransactionForm(request.GET))
    transaction_id = form.cleaned_data["transaction_id"]
    order_id = selectors.order_id_for_transaction(transaction_id=transaction_id)
    if order_id is None:
        return error(request, 404, f"no order with payment transaction id {transaction_id!r}")
    return redirect("dashboard:order", keys.bare(order_id, keys.ORDER))
