"""The numbers the sync keeps (``adminview.reads.number_reads``), each as a chart above its table: a constant
number of reads whatever the table holds, and ``?format=csv`` with every row (its columns are a contract)."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from adminview.core import schema
from adminview.reads import number_reads
from dashboard import figure_charts
from dashboard.forms.lists import FormatForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import csv_url, validated
from dashboard.range_pages import RangePage, figures, stats_url
from dashboard.responses import csv_response, domain_errors

STATUS_HEADER = ["status", "orders"]


def daily_context(rows: list[number_reads.DayFigures], start: date, end: date) -> dict[str, Any]:
    return {
        "orders_chart": figure_charts.day_chart("orders", rows, start, end),
        "revenue_chart": figure_charts.day_chart("revenue", rows, start, end),
        "daily_table_url": stats_url("dashboard:stats-daily", start, end),
        "daily_csv_url": stats_url("dashboard:stats-daily", start, end, csv=True),
    }


def categories_context(rows: list[number_reads.CategoryFigures], start: date, end: date) -> dict[str, Any]:
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


DAILY = RangePage[number_reads.DayFigures](
    title="Orders per day",
    read=number_reads.daily,
    columns=figures("orders", "units", "revenue", "cancelled"),
    prefix="daily",
    charts=daily_context,
)
CATEGORIES = RangePage[number_reads.CategoryFigures](
    title="Sales by category",
    read=number_reads.by_category,
    columns=figures("category", "units", "revenue"),
    prefix="categories",
    charts=categories_context,
)
REFUNDS = RangePage[number_reads.RefundDay](
    title="Refunds per day",
    read=number_reads.refunds_daily,
    columns=figures("refunds", "refunded"),
    prefix="refunds",
    charts=lambda rows, start, end: {
        "refunds_chart": figure_charts.day_chart("refunds", rows, start, end),
        "refunded_chart": figure_charts.day_chart("refunded", rows, start, end),
    },
)

daily, categories, refunds_per_day = DAILY.view(), CATEGORIES.view(), REFUNDS.view()
