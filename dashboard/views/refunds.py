"""Refunds per day (count and amount), as a chart above its table, with ``?format=csv`` (a contract: its columns
stay as they are): one row for every UTC day of the range, zeros included, from the admin view's counters
(``adminview.reads.number_reads.refunds_daily``), so the page reads as much whatever the tables hold."""

from __future__ import annotations

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from adminview.reads import number_reads
from dashboard import figure_charts
from dashboard.display import plain_amount
from dashboard.forms import StatsRangeForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.responses import csv_response, domain_errors
from dashboard.views.common import csv_url, refused_filter
from dashboard.views.stats import range_context
from shop.timestamps import now

REFUNDS_HEADER = ["date", "refunds", "refunded"]


@require_GET
@domain_errors
def refunds_per_day(request: HtmxHttpRequest) -> HttpResponseBase:
    today = now().date()
    form = StatsRangeForm(request.GET, today=today)
    if not form.is_valid():
        return refused_filter(request, form, "dashboard/stats_refunds.html", range_context(request, form, today))
    start, end = form.cleaned_data["start"], form.cleaned_data["end"]
    rows = number_reads.refunds_daily(start=start, end=end)
    if form.wants_csv:
        lines = ([r.day.isoformat(), r.refunds, plain_amount(r.refunded)] for r in rows)
        return csv_response(f"refunds-{start.isoformat()}-{end.isoformat()}.csv", REFUNDS_HEADER, lines)
    context = {
        "rows": rows,
        "csv_url": csv_url(request),
        "refunds_chart": figure_charts.refunds_chart(rows, start, end),
        "refunded_chart": figure_charts.refunded_chart(rows, start, end),
        **range_context(request, form, today),
    }
    return TemplateResponse(request, "dashboard/stats_refunds.html", context)
