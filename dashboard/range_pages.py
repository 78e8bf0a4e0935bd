"""A page of figures over a range of days (``from`` / ``to``), written once: the numbers pages each declare their
title, read, CSV columns and charts, and ``RangePage.view`` validates the range, reads the figures once and
answers the page or (``?format=csv``) every row; a refused range is a 400 with the page and its errors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Generic, TypeVar

from django.http import HttpRequest, HttpResponseBase
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from dashboard.forms.ranges import DayRange, StatsRangeForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import Column, csv_fields, csv_header, csv_url, csv_values, range_url, refused_filter
from dashboard.responses import csv_response, domain_errors
from shop.timestamps import now

R = TypeVar("R")
PRESETS = ((7, "7 days"), (30, "30 days"), (90, "90 days"), (365, "365 days"))


def range_context(request: HttpRequest, form: DayRange, today: date) -> dict[str, Any]:
    """The range in force (None when refused), its form as the page shows it and the quick choices."""
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
    query = {"from": start.isoformat(), "to": end.isoformat()} | ({"format": "csv"} if csv else {})
    return f"{reverse(name)}?{urlencode(query)}"


@dataclass(frozen=True)
class RangePage(Generic[R]):
    """A numbers page; its CSV ``columns`` are a contract, its ``prefix`` names its template and its CSV file."""

    title: str
    read: Callable[..., list[R]]
    columns: Sequence[Column[R]]
    prefix: str
    charts: Callable[[list[R], date, date], dict[str, Any]]

    def view(self) -> Callable[[HtmxHttpRequest], HttpResponseBase]:
        return require_GET(domain_errors(lambda request: self.response(request, today=now().date())))

    def response(self, request: HtmxHttpRequest, *, today: date) -> HttpResponseBase:
        form, template = StatsRangeForm(request.GET, today=today), f"dashboard/stats_{self.prefix}.html"
        page = {"heading": self.title, "current": self.prefix, **range_context(request, form, today)}
        if not form.is_valid():
            return refused_filter(request, form, template, page)
        start, end = form.cleaned_data["start"], form.cleaned_data["end"]
        rows = self.read(start=start, end=end)
        if form.wants_csv:
            lines = (csv_values(self.columns, row) for row in rows)
            filename = f"{self.prefix}-{start.isoformat()}-{end.isoformat()}.csv"
            return csv_response(filename, csv_header(self.columns), lines)
        context = {"rows": rows, "csv_url": csv_url(request), **page, **self.charts(rows, start, end)}
        return TemplateResponse(request, template, context)


def figures(*names: str) -> tuple[Column[Any], ...]:
    return (Column(csv="date", value=lambda r: r.day.isoformat()), *csv_fields(*names))
