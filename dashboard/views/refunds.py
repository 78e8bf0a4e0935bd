"""Refunds per day (count and amount), as a chart above its table, with ``?format=csv`` (a contract: its columns
stay as they are): one row for every UTC day of the range, zeros included, from the admin view's counters
(``adminview.reads.number_reads.refunds_daily``), so the page reads as much whatever the tables hold."""

from __future__ import annotations

from adminview.reads import number_reads
from dashboard import figure_charts
from dashboard.display import plain_amount
from dashboard.lists import Column
from dashboard.range_pages import RangePage

REFUNDS = RangePage[number_reads.RefundDay](
    template="dashboard/stats_refunds.html",
    read=lambda start, end: number_reads.refunds_daily(start=start, end=end),
    columns=(
        Column(csv="date", value=lambda r: r.day.isoformat()),
        Column(csv="refunds", value=lambda r: r.refunds),
        Column(csv="refunded", value=lambda r: plain_amount(r.refunded)),
    ),
    prefix="refunds",
    charts=lambda rows, start, end: {
        "refunds_chart": figure_charts.day_chart("refunds", rows, start, end),
        "refunded_chart": figure_charts.day_chart("refunded", rows, start, end),
    },
)

refunds_per_day = REFUNDS.view()
