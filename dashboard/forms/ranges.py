"""Ranges of days (``from`` / ``to``) as the numbers pages, a customer's invoices and a product's orders take
them: both days included, defaults and the longest range per page."""

from __future__ import annotations

from datetime import date, timedelta

from django.http import QueryDict

from dashboard.forms.lists import FormatForm, ListForm, RangeFields

DEFAULT_INVOICE_DAYS = 365
DEFAULT_STATS_DAYS = 30
DEFAULT_CHART_DAYS = 90  # the home page's charts and a category's orders
MAX_STATS_DAYS = 366


class DayRange(RangeFields):
    """``from`` / ``to``, both inclusive; absent, the ``default_days`` up to ``to`` (default: today, UTC)."""

    max_days: int | None = None
    default_days = DEFAULT_STATS_DAYS

    def __init__(self, query: QueryDict | None, today: date, default_days: int | None = None) -> None:
        super().__init__(query)
        self.today = today
        if default_days is not None:
            self.default_days = default_days

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        end = cleaned.get("end") or self.today
        start = cleaned.get("start") or end - timedelta(days=self.default_days - 1)
        self.date_range(start, end)
        if not self.errors and self.max_days is not None and (end - start).days + 1 > self.max_days:
            self.add_error("end", f"a range covers at most {self.max_days} days")
        cleaned["start"], cleaned["end"] = start, end
        return cleaned

    def shown(self) -> DayRange:
        shown = type(self)(None, today=self.today, default_days=self.default_days)
        shown.initial = {"start": self.cleaned_data["start"], "end": self.cleaned_data["end"]}
        return shown


class InvoiceRangeForm(ListForm, DayRange):
    """``from`` / ``to`` (YYYY-MM-DD, both inclusive); absent: the last 365 days up to today (UTC)."""

    default_days = DEFAULT_INVOICE_DAYS + 1


class RangeForm(DayRange):
    max_days = MAX_STATS_DAYS


class StatsRangeForm(RangeForm, FormatForm):
    """A stats page's range (default: the 30 days up to today, UTC) and ``format``."""
