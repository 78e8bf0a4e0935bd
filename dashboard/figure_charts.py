"""The numbers as the dashboard shows them: the sync's figures (``adminview.reads.number_reads``) turned into charts
(``dashboard.charts``), sums over periods and per category, and the links from a bar to its page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse

from adminview.core import schema
from adminview.reads.number_reads import CategoryFigures, DayFigures, MonthFigures, RefundDay, Returned
from dashboard.cells import id_url
from dashboard.charts import Chart, Point, bar_chart, column_chart, figure_text
from dashboard.display import money

MAX_CATEGORY_BARS = 15  # the best-selling ones; the table under the chart has them all


@dataclass(frozen=True)
class PeriodFigures:
    """Orders placed and revenue over the last ``days`` UTC days, today included; with its refunds, net revenue."""

    name: str  # "today", "7 days", "30 days"
    days: int
    orders: int
    revenue: Decimal
    cancelled: int
    refunded: Decimal | None = None  # every refund dated in those days
    refunded_for_returns: Decimal | None = None  # the part of it paid back for returned goods

    @property
    def net(self) -> Decimal | None:
        """Revenue less what returned goods were paid back (a cancelled order's revenue was never counted)."""
        return None if self.refunded_for_returns is None else self.revenue - self.refunded_for_returns

    @property
    def refunded_for_cancellations(self) -> Decimal | None:
        """The rest of the refunds: what cancelled orders paid back, which net revenue does not take off."""
        if self.refunded is None or self.refunded_for_returns is None:
            return None
        return self.refunded - self.refunded_for_returns


@dataclass(frozen=True)
class CategoryTotal:
    category: str
    units: int
    revenue: Decimal
    url: str  # the category's orders over the same range


def _last(rows: Sequence[Any], today: date, days: int) -> list[Any]:
    first = today - timedelta(days=days - 1)
    return [r for r in rows if first <= r.day <= today]


def periods(rows: Sequence[DayFigures], today: date, lengths: Sequence[tuple[str, int]]) -> list[PeriodFigures]:
    """Sums over the last n days up to ``today`` for each ``(name, n)``; ``rows`` must cover them."""
    sums = []
    for name, days in lengths:
        inside = _last(rows, today, days)
        revenue = sum((r.revenue for r in inside), Decimal("0.00"))
        sums.append(PeriodFigures(name, days, sum(r.orders for r in inside), revenue, sum(r.cancelled for r in inside)))
    return sums


def with_refunds(periods: Sequence[PeriodFigures], rows: Sequence[RefundDay], today: date) -> list[PeriodFigures]:
    """Each period with the refunds of its days (``rows`` must cover them): its net revenue."""
    out = []
    for period in periods:
        days = _last(rows, today, period.days)
        refunded = sum((r.refunded for r in days), Decimal("0.00"))
        for_returns = sum((r.for_returns for r in days), Decimal("0.00"))
        out.append(replace(period, refunded=refunded, refunded_for_returns=for_returns))
    return out


def category_url(category: str, start: date, end: date) -> str:
    """``/categories/<name>/?from=&to=``, the name percent-quoted (it is free text)."""
    return f"{id_url('dashboard:category', category)}?{urlencode({'from': start.isoformat(), 'to': end.isoformat()})}"


def category_totals(rows: Sequence[CategoryFigures], start: date, end: date) -> list[CategoryTotal]:
    """Units and revenue per category over the range, most units first (then by name)."""
    sums: dict[str, list[Decimal]] = {}
    for row in rows:
        bucket = sums.setdefault(row.category, [Decimal(0), Decimal(0)])
        bucket[0] += row.units
        bucket[1] += row.revenue
    ordered = sorted(sums.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return [
        CategoryTotal(name, int(units), revenue, category_url(name, start, end)) for name, (units, revenue) in ordered
    ]


def _span(start: date, end: date) -> str:
    days = (end - start).days + 1
    return f"{start.isoformat()} to {end.isoformat()} ({days} UTC day{'s' if days != 1 else ''})"


def _peak(points: Sequence[Point], unit: str) -> str:
    best = max(points, key=lambda p: p.value, default=None)
    if best is None or not best.value:
        return f"no {unit}"
    return f"most on {best.label} ({figure_text(best.value)})"


# A per-day figure's chart: its title, its axis unit (after the currency when it is money), the word its peak counts,
# and whether it is money.
DAILY: dict[str, tuple[str, str, str, bool]] = {
    "orders": ("Orders placed per day", "orders", "orders", False),
    "revenue": ("Revenue per day (orders not cancelled)", "in revenue", "revenue", True),
    "refunds": ("Refunds per day", "refunds", "refunds", False),
    "refunded": ("Amount refunded per day", "refunded", "refunds", True),
}


def day_chart(figure: str, rows: Sequence[DayFigures | RefundDay], start: date, end: date) -> Chart:
    """One figure of every day (a ``DAILY`` name, an attribute of the rows) as columns, id ``chart-<figure>``."""
    title, unit, peak, is_money = DAILY[figure]
    points = [Point(r.day.isoformat(), r.day.isoformat(), getattr(r, figure)) for r in rows]
    total = sum((p.value for p in points), Decimal("0.00") if is_money else 0)
    return column_chart(
        points,
        chart_id=f"chart-{figure}",
        kind=figure,
        title=f"{title}, {_span(start, end)}",
        summary=f"{money(total) if is_money else f'{figure_text(total)} {figure}'} in all; {_peak(points, peak)}.",
        unit=f"{settings.SHOP_CURRENCY} {unit}" if is_money else unit,
        whole=not is_money,
    )


def categories_chart(totals: Sequence[CategoryTotal], start: date, end: date) -> Chart:
    shown = totals[:MAX_CATEGORY_BARS]
    points = [Point(t.category, t.category, t.units, t.url) for t in shown]
    which = (
        f"the {len(shown)} best-selling of {len(totals)} categories" if len(totals) > len(shown) else "every category"
    )
    units = sum(t.units for t in totals)
    return bar_chart(
        points,
        chart_id="chart-categories",
        kind="units",
        title=f"Units sold by category, {_span(start, end)}: {which}",
        summary=f"{figure_text(units)} units in all; {_peak(points, 'units')}." if points else "Nothing sold.",
        unit="units",
    )


def status_chart(counts: dict[str, int]) -> Chart:
    points = [
        Point(
            status,
            status,
            orders,
            f"{reverse('dashboard:orders')}?{urlencode({'status': status})}"
            if status in schema.LISTED_STATUSES
            else None,
        )
        for status, orders in counts.items()
    ]
    return bar_chart(
        points,
        chart_id="chart-status",
        kind="status",
        title="Orders by status, now",
        summary=", ".join(f"{p.label} {figure_text(p.value)}" for p in points) + ".",
        unit="orders",
    )


def months_filled(months: Sequence[MonthFigures]) -> list[MonthFigures]:
    """Every month from the first to the last with sales, zeros included (a gap shows as a gap)."""
    if not months:
        return []
    by_month = {m.month: m for m in months}
    year, month = (int(part) for part in months[0].month.split("-"))
    out = []
    while True:
        key = f"{year:04d}-{month:02d}"
        out.append(by_month.get(key, MonthFigures(key, 0, Decimal("0.00"))))
        if key >= months[-1].month:
            return out
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


@dataclass(frozen=True)
class ReturnRate:
    """Units returned against units sold (in orders not cancelled), and how many went back in stock."""

    returned: int
    sold: int
    restocked: int = 0
    damaged: int = 0

    @property
    def percent(self) -> Decimal | None:
        return (Decimal(100) * self.returned / self.sold).quantize(Decimal("0.1")) if self.sold else None


def return_rate(returned: Returned | None, months: Sequence[MonthFigures]) -> ReturnRate | None:
    """The rate over every month sold (None when the returned units could not be read)."""
    if returned is None:
        return None
    return ReturnRate(returned.units, sum(m.units for m in months), returned.restocked, returned.damaged)


def months_chart(months: Sequence[MonthFigures]) -> Chart:
    points = [Point(m.month, m.month, m.units) for m in months]
    units = sum(m.units for m in months)
    span = f"{months[0].month} to {months[-1].month}" if months else "no sales"
    return column_chart(
        points,
        chart_id="chart-months",
        kind="units",
        title=f"Units sold per month (orders not cancelled), {span}",
        summary=f"{figure_text(units)} units in all; {_peak(points, 'units')}.",
        unit="units",
        height=150.0,
    )
