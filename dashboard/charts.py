"""The geometry of the dashboard's bar charts (scales, bars, axis ticks) in SVG user units, rounded to 0.1, for
``dashboard/_chart.html``, which only loops over what is prepared here (see docs/staff-work.md, "The pages")."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

Number = int | Decimal
Anchor = Literal["start", "middle", "end"]

WIDTH = 960.0  # viewBox width; CSS scales the SVG to its box
FONT = 12.0  # label size in user units (the CSS sets the same)
CHAR = 6.8  # width of one label character, roughly, at that size
TICKS = 4  # value-axis intervals, about
MIN_STEP = 0.01  # a cent: no figure is finer
MAX_AXIS_LABELS = 8  # along a column chart's bottom
LABEL_CHARS = 22  # a bar chart's names are cut to this (the whole name is in the bar's title)


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    anchor: Anchor = "middle"


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True)
class Tick:
    line: Line
    label: Text


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    key: str  # what the bar stands for (a date, a category): its ``data-key``
    title: str  # its tooltip: "2026-03-04: 12 orders"
    name: Text | None = None  # a bar chart's name label, left of the bar
    value: Text | None = None  # a bar chart's value label, after the bar
    href: str | None = None  # the bar and its labels link there


@dataclass(frozen=True)
class Point:
    """One bar's data: ``key`` identifies it, ``label`` names it on the chart, ``value`` is its size."""

    key: str
    label: str
    value: Number
    href: str | None = None


@dataclass(frozen=True)
class Chart:
    chart_id: str  # unique on the page: the SVG's id, and its title's and description's
    kind: str  # a CSS modifier (``chart-orders``): which colour the bars take
    title: str  # what it shows (the SVG's <title>, its accessible name)
    summary: str  # the figures in one sentence (its <desc>)
    width: float
    height: float
    bars: tuple[Bar, ...]
    ticks: tuple[Tick, ...]
    axis: tuple[Text, ...]  # a column chart's labels along the bottom
    baseline: Line

    @property
    def linked(self) -> bool:
        """Some bar is a link: the SVG is then a group (an image's content is not interactive, so its links would
        be hidden from assistive technology), else an image."""
        return any(bar.href for bar in self.bars)


def nice_step(top: float, intervals: int = TICKS) -> float:
    """A round step (1, 2 or 5 times a power of ten) that covers ``top`` in about ``intervals`` steps."""
    if top <= 0:
        return 1.0
    raw = max(top / intervals, MIN_STEP)
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return float(factor * power)
    return float(10 * power)  # not reached: raw <= 10 * power always


def ticks_for(top: float, *, whole: bool) -> list[float]:
    """0, step, 2 step, ... up to the first multiple at or above ``top``; whole numbers only when ``whole``."""
    step = nice_step(top)
    if whole:
        step = max(1.0, math.ceil(step))
    count = max(1, math.ceil(top / step - 1e-9))
    return [i * step for i in range(count + 1)]


def _scale(points: Sequence[Point], whole: bool) -> tuple[list[float], float]:
    """The value axis's ticks for the points, and the value at its top (never 0)."""
    steps = ticks_for(max((float(p.value) for p in points), default=0.0), whole=whole)
    return steps, steps[-1] or 1.0


def compact(value: float) -> str:
    """A short axis label: 950, 1.2k, 35k, 4.5M."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            text = f"{value / size:.1f}".removesuffix(".0")
            return text + suffix
    return f"{value:.2f}".rstrip("0").rstrip(".") if value % 1 else str(int(value))


def figure_text(value: Number) -> str:
    """A value as a title shows it: whole numbers grouped (1,234), decimals with two places (1,234.50)."""
    if isinstance(value, Decimal):
        return f"{value:,.2f}"
    return f"{value:,}"


def _r(value: float) -> float:
    return round(value, 1)


def _axis_positions(count: int, keys: Sequence[str]) -> list[int]:
    """Which of ``count`` columns get a label: all of a few; else about ``MAX_AXIS_LABELS`` evenly spaced, or,
    for dates over two months, each month's first day."""
    if count <= MAX_AXIS_LABELS:
        return list(range(count))
    if count > 62 and all(len(k) == 10 for k in keys):  # days: label months
        firsts = [i for i, k in enumerate(keys) if k.endswith("-01")]
        step = max(1, math.ceil(len(firsts) / MAX_AXIS_LABELS))
        return firsts[::step]
    step = math.ceil(count / MAX_AXIS_LABELS)
    return list(range(0, count, step))


def column_chart(
    points: Sequence[Point],
    *,
    chart_id: str,
    kind: str,
    title: str,
    summary: str,
    unit: str,
    whole: bool = True,
    height: float = 180.0,
) -> Chart:
    """Vertical bars, one per point, in order; the value axis on the left from 0 up to a round number."""
    left, right, top, bottom = 52.0, 8.0, 10.0, 22.0
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    steps, scale_top = _scale(points, whole)
    slot = plot_w / max(1, len(points))
    gap = min(slot * 0.2, 2.0)
    base_y = top + plot_h
    bars = []
    for i, point in enumerate(points):
        h = plot_h * max(0.0, float(point.value)) / scale_top
        x, width = left + i * slot + gap / 2, max(slot - gap, 0.5)
        said = f"{point.label}: {figure_text(point.value)} {unit}"
        bars.append(Bar(_r(x), _r(base_y - h), _r(width), _r(h), point.key, said, href=point.href))
    ticks = tuple(
        Tick(Line(left, _r(y), WIDTH - right, _r(y)), Text(left - 6, _r(y + FONT / 3), compact(v), "end"))
        for v in steps
        for y in [base_y - plot_h * v / scale_top]
    )
    axis = tuple(
        Text(_r(left + (i + 0.5) * slot), _r(height - 6), points[i].label)
        for i in _axis_positions(len(points), [p.key for p in points])
    )
    baseline = Line(left, base_y, WIDTH - right, base_y)
    return Chart(chart_id, kind, title, summary, WIDTH, height, tuple(bars), ticks, axis, baseline)


def bar_chart(
    points: Sequence[Point],
    *,
    chart_id: str,
    kind: str,
    title: str,
    summary: str,
    unit: str,
    whole: bool = True,
    row: float = 24.0,
) -> Chart:
    """Horizontal bars, one per point, top to bottom in the given order; names left, values after the bars."""
    names = [p.label if len(p.label) <= LABEL_CHARS else p.label[: LABEL_CHARS - 1] + "…" for p in points]
    left = min(12 + CHAR * max((len(n) for n in names), default=4), 12 + CHAR * LABEL_CHARS)
    values = [figure_text(p.value) for p in points]
    right = 12 + CHAR * max((len(v) for v in values), default=1)
    top, bottom = 6.0, 22.0
    height = top + row * max(1, len(points)) + bottom
    plot_w = WIDTH - left - right
    steps, scale_top = _scale(points, whole)
    bar_h = row * 0.7
    bars = []
    for i, (point, name, value) in enumerate(zip(points, names, values, strict=True)):
        w = plot_w * max(0.0, float(point.value)) / scale_top
        y = top + i * row + (row - bar_h) / 2
        middle = _r(y + bar_h / 2 + FONT / 3)
        labels = Text(_r(left - 6), middle, name, "end"), Text(_r(left + w + 4), middle, value, "start")
        said = f"{point.label}: {value} {unit}"
        bars.append(Bar(_r(left), _r(y), _r(w), _r(bar_h), point.key, said, *labels, href=point.href))
    plot_bottom = top + row * max(1, len(points))
    ticks = tuple(
        Tick(Line(_r(x), top, _r(x), plot_bottom), Text(_r(x), _r(height - 6), compact(v)))
        for v in steps
        for x in [left + plot_w * v / scale_top]
    )
    return Chart(
        chart_id, kind, title, summary, WIDTH, height, tuple(bars), ticks, (), Line(left, top, left, plot_bottom)
    )
