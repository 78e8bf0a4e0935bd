"""The numbers the sync keeps (``adminview.reads.number_reads``): orders by status, per day, and per day and category,
each as a chart above its table.

Each page reads a constant number of items whatever the table holds (one BatchGetItem, or one Query per counter
shard over at most 366 days), and each has ``?format=csv`` with every row (the CSV columns are a contract checked
from outside: keep them as they are).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.http import HttpRequest, HttpResponseBase
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from adminview.core import schema
from adminview.reads import number_reads
from dashboard import figure_charts
from dashboard.display import plain_amount
from dashboard.forms import DayRange, FormatForm, StatsRangeForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.responses import csv_response, domain_errors
from dashboard.views.common import csv_url, range_url, refused_filter, validated
from shop.timestamps import now

STATUS_HEADER = ["status", "orders"]
DAILY_HEADER = ["date", "orders", "units", "revenue", "cancelled"]
CATEGORY_HEADER = ["date", "category", "units", "revenue"]
PRESETS = ((7, "7 days"), (30, "30 days"), (90, "90 days"), (365, "365 days"))


def range_context(request: HttpRequest, form: DayRange, today: date) -> dict[str, Any]:
    """The range in force (``start``, ``end``: None when the form was refused), the range form as the page shows
    it (``range_form``: with its errors when refused) and its quick choices (the last 7, 30, 90 and 365 days up to
    today)."""
    valid = not form.errors
    start, end = (form.cleaned_data["start"], form.cleaned_data["end"]) if valid else (None, None)
    presets = []
    for days, label in PRESETS:
        first = today - timedelta(days=days - 1)
        presets.append(
            {"label": label, "url": range_url(request, first, today), "current": (first, today) == (start, end)}
        )
    return {"start": start, "end": end, "presets": presets, "range_form": form.shown() if valid else form}


def stats_url(name: str, start: date, end: date, *, csv: bool = False) -> str:
    """A stats page (``dashboard:stats-daily`` ...) over a range, or its CSV."""
    query = {"from": start.isoformat(), "to": end.isoformat()} | ({"format": "csv"} if csv else {})
    return f"{reverse(name)}?{urlencode(query)}"


def daily_context(rows: list[number_reads.DayFigures], start: date, end: date) -> dict[str, Any]:
    """The orders-and-revenue chart of a range, and where its numbers are."""
    return {
        "orders_chart": figure_charts.orders_chart(rows, start, end),
        "revenue_chart": figure_charts.revenue_chart(rows, start, end),
        "daily_table_url": stats_url("dashboard:stats-daily", start, end),
        "daily_csv_url": stats_url("dashboard:stats-daily", start, end, csv=True),
    }


def categories_context(rows: list[number_reads.CategoryFigures], start: date, end: date) -> dict[str, Any]:
    """The units-by-category chart of a range, its totals table, and where the day-by-day numbers are."""
    totals = figure_charts.category_totals(rows, start, end)
    return {
        "category_totals": totals,
        "categories_chart": figure_charts.categories_chart(totals, start, end),
        "categories_table_url": stats_url("dashboard:stats-categories", start, end),
        "categories_csv_url": stats_url("dashboard:stats-categories", start, end, csv=True),
    }


@require_GET
@domain_errors
def status_counts(request: HtmxHttpRequest) -> HttpResponseBase:
    form = validated(FormatForm(request.GET))
    counts = number_reads.status_counts()
    if form.wants_csv:
        return csv_response("orders-by-status.csv", STATUS_HEADER, ([s, n] for s, n in counts.items()))
    context = {
        "counts": counts,
        "total": sum(counts.values()),
        "csv_url": csv_url(request),
        "status_chart": figure_charts.status_chart(counts),
        "listed": schema.LISTED_STATUSES,
    }
    return TemplateResponse(request, "dashboard/stats_status.html", context)


@require_GET
@domain_errors
def daily(request: HtmxHttpRequest) -> HttpResponseBase:
    today = now().date()
    form = StatsRangeForm(request.GET, today=today)
    if not form.is_valid():
        return refused_filter(request, form, "dashboard/stats_daily.html", range_context(request, form, today))
    start, end = form.cleaned_data["start"], form.cleaned_data["end"]
    rows = number_reads.daily(start=start, end=end)
    if form.wants_csv:
        lines = ([r.day.isoformat(), r.orders, r.units, plain_amount(r.revenue), r.cancelled] for r in rows)
        return csv_response(f"daily-{start.isoformat()}-{end.isoformat()}.csv", DAILY_HEADER, lines)
    context = {
        "rows": rows,
        "csv_url": csv_url(request),
        **range_context(request, form, today),
        **daily_context(rows, start, end),
    }
    return TemplateResponse(request, "dashboard/stats_daily.html", context)


@require_GET
@domain_errors
def categories(request: HtmxHttpRequest) -> HttpResponseBase:
    today = now().date()
    form = StatsRangeForm(request.GET, today=today)
    if not form.is_valid():
        return refused_filter(request, form, "dashboard/stats_categories.html", range_context(request, form, today))
    start, end = form.cleaned_data["start"], form.cleaned_data["end"]
    rows = number_reads.by_category(start=start, end=end)
    if form.wants_csv:
        lines = ([r.day.isoformat(), r.category, r.units, plain_amount(r.revenue)] for r in rows)
        return csv_response(f"categories-{start.isoformat()}-{end.isoformat()}.csv", CATEGORY_HEADER, lines)
    context = {
        "rows": rows,
        "csv_url": csv_url(request),
        **range_context(request, form, today),
        **categories_context(rows, start, end),
    }
    return TemplateResponse(request, "dashboard/stats_categories.html", context)
