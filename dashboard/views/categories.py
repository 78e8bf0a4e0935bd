"""A category's orders over a range of days, newest or oldest first: one Query per write shard of the admin view's
category entries, merged, with "load more" and a CSV of every row; the customers' names with one BatchGetItem of
the page's profiles. Linked from the category charts and tables of the numbers pages.

The name is free text (it comes percent-quoted in the path); the selector refuses an empty one or one over 100
characters (400). A name no order holds is a 404: when the range shows nothing, one more read over every date
(``dashboard.category_names.category_has_orders``) tells an empty range from an unknown category.
"""

from __future__ import annotations

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from adminview.reads import selectors
from adminview.reads.selectors import CategoryOrderRow
from dashboard import cursors
from dashboard.category_names import category_has_orders
from dashboard.cells import DASH, Cell, Row, amount_cell, id_url, timestamp, waited_cell
from dashboard.display import plain_amount
from dashboard.forms import DEFAULT_CHART_DAYS, CategoryOrdersForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.profiles import Profile
from dashboard.responses import csv_response, domain_errors, error
from dashboard.views.common import (
    csv_url,
    customer_cell,
    every_row_with_profiles,
    next_url,
    partial,
    range_url,
    refused_filter,
    with_profiles,
)
from dashboard.views.stats import range_context, stats_url
from shop.timestamps import now

CATEGORY_CSV_HEADER = [
    "order_id",
    "customer_id",
    "date",
    "status",
    "total",
    "units",
    "revenue",
    "customer_name",
    "customer_email",
]


def category_row(row: CategoryOrderRow, profile: Profile) -> Row:
    """Order, customer (by name), date, how long it has waited, status, the order's total, and the units and
    revenue of its lines of the category."""
    cells = [
        Cell(row.order_id, url=id_url("dashboard:order", row.order_id)),
        customer_cell(row.customer_id, profile),
        Cell(timestamp(row.date) or DASH),
        waited_cell(row.date),
        Cell(row.status or "unknown"),
        amount_cell(row.total),
        Cell(row.units, numeric=True),
        amount_cell(row.revenue),
    ]
    return Row(cells, (("order-id", row.order_id),))


def category_csv_row(row: CategoryOrderRow, profile: Profile) -> list[object]:
    return [
        row.order_id,
        row.customer_id,
        row.date.isoformat() if row.date else None,
        row.status,
        plain_amount(row.total),
        row.units,
        plain_amount(row.revenue),
        profile.name,
        profile.email,
    ]


def _unknown(request: HtmxHttpRequest, category: str) -> HttpResponseBase:
    """404: no order of any date holds the category (``dashboard.category_names``)."""
    return error(request, 404, f"No order holds an item of the category {category.strip()!r}.")


@require_GET
@domain_errors
def category_orders(request: HtmxHttpRequest, category: str) -> HttpResponseBase:
    """``/categories/<name>/?from=&to=&sort=`` (default: the last 90 days, newest first): the orders placed in the
    range that hold items of the category."""
    today = now().date()
    form = CategoryOrdersForm(request.GET, today=today, default_days=DEFAULT_CHART_DAYS)
    if not form.is_valid():
        context = {"category": category.strip(), "rows": [], **range_context(request, form, today)}
        return refused_filter(request, form, "dashboard/category.html", context)
    start, end, sort = form.cleaned_data["start"], form.cleaned_data["end"], form.cleaned_data["sort"]
    scope = f"{category}|{start.isoformat()}|{end.isoformat()}|{sort}"
    after = cursors.decode(form.cleaned_data["cursor"], salt="category", scope=scope)
    if form.wants_csv:
        rows = every_row_with_profiles(selectors.category_orders, category=category, start=start, end=end, sort=sort)
        if not category_has_orders(category):
            return _unknown(request, category)
        filename = f"category-{slugify(category) or 'orders'}-{start.isoformat()}-{end.isoformat()}.csv"
        return csv_response(filename, CATEGORY_CSV_HEADER, (category_csv_row(row, who) for row, who in rows))
    page = selectors.category_orders(
        category=category, start=start, end=end, limit=form.cleaned_data["limit"], after=after, sort=sort
    )
    if after is None and not page.rows and not category_has_orders(category):
        return _unknown(request, category)
    context = {
        "category": category.strip(),
        "sort": sort,
        "rows": [category_row(row, who) for row, who in with_profiles(page.rows)],
        "next_url": next_url(request, cursors.encode(page.next, salt="category", scope=scope)),
        "csv_url": csv_url(request),
        "first_page": after is None,
        "newest_url": range_url(request, start, end),
        "categories_url": stats_url("dashboard:stats-categories", start, end) if (end - start).days < 366 else None,
        **range_context(request, form, today),
    }
    return TemplateResponse(request, partial(request, "dashboard/category.html", "rows"), context)
