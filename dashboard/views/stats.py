"""The numbers the sync keeps (``adminview.stats``): orders by status, per day, and per day and category.

Each page reads a constant number of items whatever the table holds (one BatchGetItem, or one Query per counter
shard over at most 366 days), and each has ``?format=csv`` with every row.
"""

from __future__ import annotations

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from adminview import stats
from dashboard.forms import FormatForm, StatsRangeForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.responses import csv_response, domain_errors
from dashboard.views.common import csv_url, validated
from shop.timestamps import now

STATUS_HEADER = ["status", "orders"]
DAILY_HEADER = ["date", "orders", "units", "revenue", "cancelled"]
CATEGORY_HEADER = ["date", "category", "units", "revenue"]


def _range(request: HtmxHttpRequest) -> StatsRangeForm:
    return validated(StatsRangeForm(request.GET, today=now().date()))


@require_GET
@domain_errors
def status_counts(request: HtmxHttpRequest) -> HttpResponseBase:
    form = validated(FormatForm(request.GET))
    counts = stats.status_counts()
    if form.wants_csv:
        return csv_response("orders-by-status.csv", STATUS_HEADER, ([s, n] for s, n in counts.items()))
    context = {"counts": counts, "total": sum(counts.values()), "csv_url": csv_url(request)}
    return TemplateResponse(request, "dashboard/stats_status.html", context)


@require_GET
@domain_errors
def daily(request: HtmxHttpRequest) -> HttpResponseBase:
    form = _range(request)
    start, end = form.cleaned_data["start"], form.cleaned_data["end"]
    rows = stats.daily(start=start, end=end)
    if form.wants_csv:
        lines = ([r.day.isoformat(), r.orders, r.units, r.revenue, r.cancelled] for r in rows)
        return csv_response(f"daily-{start.isoformat()}-{end.isoformat()}.csv", DAILY_HEADER, lines)
    context = {"rows": rows, "start": start, "end": end, "csv_url": csv_url(request)}
    return TemplateResponse(request, "dashboard/stats_daily.html", context)


@require_GET
@domain_errors
def categories(request: HtmxHttpRequest) -> HttpResponseBase:
    form = _range(request)
    start, end = form.cleaned_data["start"], form.cleaned_data["end"]
    rows = stats.by_category(start=start, end=end)
    if form.wants_csv:
        lines = ([r.day.isoformat(), r.category, r.units, r.revenue] for r in rows)
        return csv_response(f"categories-{start.isoformat()}-{end.isoformat()}.csv", CATEGORY_HEADER, lines)
    context = {"rows": rows, "start": start, "end": end, "csv_url": csv_url(request)}
    return TemplateResponse(request, "dashboard/stats_categories.html", context)
