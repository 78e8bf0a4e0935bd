"""The charts' geometry (``dashboard.charts``): round axis steps, one bar per point inside the plot, heights in
proportion, a few readable labels. Pure: no engine, no Django."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.charts import WIDTH, Point, bar_chart, column_chart, compact, figure_text, nice_step, ticks_for


@pytest.mark.parametrize(
    ("top", "step"), [(0, 1), (1, 0.5), (4, 1), (7, 2), (10, 5), (56, 20), (99, 50), (1_234.5, 500), (0.03, 0.01)]
)
def test_steps_are_round(top: float, step: float) -> None:
    assert nice_step(top) == pytest.approx(step)


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
@given(st.floats(min_value=0, max_value=1e9, allow_nan=False), st.booleans())
def test_ticks_start_at_zero_and_cover_the_top(top: float, whole: bool) -> None:
    ticks = ticks_for(top, whole=whole)
    assert ticks[0] == 0 and ticks[-1] >= top * (1 - 1e-9) and 2 <= len(ticks) <= 11
    if whole:
        assert all(t == int(t) for t in ticks)


def test_compact_labels_and_titles() -> None:
    assert [compact(v) for v in (0, 5, 0.5, 950, 1_200, 35_000, 4_500_000)] == [
        "0",
        "5",
        "0.5",
        "950",
        "1.2k",
        "35k",
        "4.5M",
    ]
    assert figure_text(1234) == "1,234" and figure_text(Decimal("1234.5")) == "1,234.50"


def days(count: int) -> list[Point]:
    start = date(2026, 1, 1)
    return [
        Point((start + timedelta(days=n)).isoformat(), (start + timedelta(days=n)).isoformat(), n % 7)
        for n in range(count)
    ]


def test_a_column_chart_has_one_bar_per_point_inside_the_plot() -> None:
    chart = column_chart(days(90), chart_id="c", kind="orders", title="t", summary="s", unit="orders")
    assert [b.key for b in chart.bars] == [p.key for p in days(90)]
    base = chart.baseline.y1
    for bar in chart.bars:
        assert chart.baseline.x1 <= bar.x and bar.x + bar.width <= WIDTH
        assert bar.y + bar.height == pytest.approx(base, abs=0.11)
    tallest = max(chart.bars, key=lambda b: b.height)
    assert tallest.y == pytest.approx(chart.ticks[-1].line.y1, abs=0.11)  # 6 is the top tick: it reaches it
    assert chart.bars[0].height == 0 and chart.bars[1].height == pytest.approx(tallest.height / 6, abs=0.11)
    assert chart.bars[3].title == "2026-01-04: 3 orders"
    assert [t.text for t in chart.axis] == ["2026-01-01", "2026-02-01", "2026-03-01"]  # months over long ranges


def test_a_short_column_chart_labels_every_point_and_an_empty_one_draws() -> None:
    chart = column_chart(days(7), chart_id="c", kind="orders", title="t", summary="s", unit="orders")
    assert len(chart.axis) == 7
    empty = column_chart([], chart_id="e", kind="orders", title="t", summary="s", unit="orders")
    assert empty.bars == () and [t.label.text for t in empty.ticks] == ["0", "1"]
    year = column_chart(days(366), chart_id="y", kind="orders", title="t", summary="s", unit="orders")
    assert len(year.bars) == 366 and len(year.axis) <= 8 and all(b.width > 0 for b in year.bars)


def test_a_bar_chart_names_each_bar_and_links_it() -> None:
    points = [Point("Books", "Books", 17, "/categories/Books/"), Point("x" * 40, "x" * 40, Decimal("2.50"))]
    chart = bar_chart(points, chart_id="b", kind="units", title="t", summary="s", unit="units", whole=False)
    books, long = chart.bars
    assert books.href == "/categories/Books/" and long.href is None
    assert books.name is not None and books.name.text == "Books" and books.name.anchor == "end"
    assert long.name is not None and len(long.name.text) == 22 and long.name.text.endswith("…")
    assert long.title == f"{'x' * 40}: 2.50 units"  # the whole name in the tooltip
    assert books.value is not None and books.value.text == "17" and books.value.x > books.x + books.width
    assert books.width > long.width > 0 and books.y < long.y
    assert books.x + books.width <= WIDTH
    assert chart.linked  # a group of links, not an image (whose content assistive technology skips)
    assert not column_chart(days(7), chart_id="c", kind="orders", title="t", summary="s", unit="orders").linked
