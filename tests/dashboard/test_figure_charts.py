"""The numbers as the pages show them (``dashboard.figure_charts``): sums over periods, category totals and their
links, months filled in. Pure: no engine."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from adminview.reads.number_reads import CategoryFigures, DayFigures, MonthFigures
from dashboard import figure_charts


def test_periods_sum_the_last_days_up_to_today() -> None:
    today = date(2026, 3, 10)
    rows = [DayFigures(today - timedelta(days=n), n, n % 2, 2 * n, Decimal(n)) for n in range(30)]
    today_, week, month = figure_charts.periods(rows, today, (("Today", 1), ("7", 7), ("30", 30)))
    assert (today_.orders, today_.revenue) == (0, Decimal(0))
    assert (week.orders, week.revenue, week.cancelled) == (21, Decimal(21), 3)
    assert (month.orders, month.days) == (435, 30)


def test_category_totals_most_units_first_with_quoted_links() -> None:
    day = date(2026, 3, 1)
    rows = [
        CategoryFigures(day, "Books", 2, Decimal("21.00")),
        CategoryFigures(day, "A & B/C", 5, Decimal("5.00")),
        CategoryFigures(day + timedelta(days=1), "Books", 4, Decimal("42.00")),
        CategoryFigures(day, "Aardvarks", 6, Decimal("1.00")),
    ]
    totals = figure_charts.category_totals(rows, day, day + timedelta(days=1))
    assert [(t.category, t.units, t.revenue) for t in totals] == [
        ("Aardvarks", 6, Decimal("1.00")),
        ("Books", 6, Decimal("63.00")),
        ("A & B/C", 5, Decimal("5.00")),
    ]
    assert totals[2].url == "/categories/A%20%26%20B%2FC/?from=2026-03-01&to=2026-03-02"
    chart = figure_charts.categories_chart(totals, day, day)
    assert [b.href for b in chart.bars] == [t.url for t in totals]
    assert "every category" in chart.title


def test_months_filled_across_a_year_end() -> None:
    months = [MonthFigures("2025-11", 3, Decimal("3.00")), MonthFigures("2026-02", 1, Decimal("1.00"))]
    filled = figure_charts.months_filled(months)
    assert [m.month for m in filled] == ["2025-11", "2025-12", "2026-01", "2026-02"]
    assert [m.units for m in filled] == [3, 0, 0, 1]
    assert figure_charts.months_filled([]) == []


def test_status_chart_links_each_status_to_its_list() -> None:
    chart = figure_charts.status_chart({"PENDING": 3, "SHIPPED": 1, "DELIVERED": 7, "CANCELLED": 0, "LOST": 2})
    assert [b.href for b in chart.bars] == [
        "/orders/?status=PENDING",
        "/orders/?status=SHIPPED",
        "/orders/?status=DELIVERED",
        "/orders/?status=CANCELLED",
        None,  # a status without a list (none today) is not linked
    ]
    assert chart.summary == "PENDING 3, SHIPPED 1, DELIVERED 7, CANCELLED 0, LOST 2."
