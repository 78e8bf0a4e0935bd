"""The numbers pages on DynamoDB Local: the home page's figures and charts, /stats/daily/, /stats/categories/ and
/stats/status/, each equal to what a scan of the shop table implies, with their CSV contracts, 400 on bad ranges,
and a number of DynamoDB calls that grows with neither the table nor the range."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
from html import escape, unescape
from typing import Any

import pytest
from django.test import Client

from tests.adminview.figures_oracle import expected
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows
from tests.dashboard.numbers_shop import ODD_CATEGORY, TODAY, frozen_now, place, seeded

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]

DAY = TODAY.date()
CENT = Decimal("0.01")


@pytest.fixture(scope="module")
def figure_orders_seeded(module_tables: None) -> Iterator[list[str]]:
    """The shop seeded once for the module, the pages' clock stopped meanwhile. Every figure is checked against a
    count from scratch (``expected``), so the tests that add orders (each its own ids) leave the others right."""
    with seeded("n") as placed:
        yield placed


@pytest.fixture
def tables(shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch) -> None:
    frozen_now(monkeypatch)


def calls(response: Any) -> int:
    assert response.status_code == 200, response.content[:300]
    return int(response["X-DynamoDB-Calls"])


def oracle_days(start: date, end: date) -> list[list[Any]]:
    """``[date, orders, units, revenue, cancelled]`` for every day of the range, from a scan."""
    days = expected()["days"]
    rows = []
    for offset in range((end - start).days + 1):
        day = start + timedelta(days=offset)
        orders, units, revenue, cancelled = days.get(day.isoformat(), [Decimal(0)] * 4)
        rows.append([day.isoformat(), int(orders), int(units), revenue.quantize(CENT), int(cancelled)])
    return rows


def oracle_category_totals(start: date, end: date) -> dict[str, tuple[int, Decimal]]:
    totals: dict[str, list[Decimal]] = {}
    for (day, category), (units, revenue) in expected()["categories"].items():
        if start.isoformat() <= day <= end.isoformat() and units > 0:
            bucket = totals.setdefault(category, [Decimal(0), Decimal(0)])
            bucket[0] += units
            bucket[1] += revenue
    return {name: (int(units), revenue.quantize(CENT)) for name, (units, revenue) in totals.items()}


def bar_keys(html: str, chart_id: str) -> list[str]:
    svg = html.split(f'id="{chart_id}"', 1)[1].split("</svg>", 1)[0]
    return [unescape(key) for key in re.findall(r'<rect class="bar"[^>]*data-key="([^"]*)"', svg)]


# --- the home page -----------------------------------------------------------------------------------------


def test_home_opens_on_the_key_figures_and_the_charts(
    staff: Client, operator: Client, figure_orders_seeded: list[str]
) -> None:
    response = staff.get("/")
    assert response.status_code == 200
    oracle = expected()
    assert response.context["counts"] == oracle["status"]
    days = oracle_days(DAY - timedelta(days=29), DAY)
    for period, length in zip(response.context["periods"], (1, 7, 30), strict=True):
        inside = days[-length:]
        assert (period.days, period.orders, period.revenue, period.cancelled) == (
            length,
            sum(d[1] for d in inside),
            sum((d[3] for d in inside), Decimal("0.00")),
            sum(d[4] for d in inside),
        )
    assert response.context["periods"][2].orders > response.context["periods"][1].orders > 0
    assert response.context["dead_letters"] == 0

    html = response.content.decode()
    delivered = html.split('data-status="DELIVERED"')[1].split("</div>")[0]
    assert '<a href="/orders/?status=DELIVERED">' in delivered  # each count opens its status's list
    start = DAY - timedelta(days=89)
    every_day = [(start + timedelta(days=n)).isoformat() for n in range(90)]
    assert bar_keys(html, "chart-orders") == every_day  # 90 days by default, one bar each
    assert bar_keys(html, "chart-revenue") == every_day
    totals = oracle_category_totals(start, DAY)
    assert sorted(bar_keys(html, "chart-categories")) == sorted(totals)
    shown = {t.category: (t.units, t.revenue) for t in response.context["category_totals"]}
    assert shown == totals
    assert 'role="img"' in html and 'aria-labelledby="chart-orders-title chart-orders-desc"' in html
    assert f'href="/stats/daily/?from={start.isoformat()}&amp;to={DAY.isoformat()}"' in html
    assert f'href="/stats/daily/?from={start.isoformat()}&amp;to={DAY.isoformat()}&amp;format=csv"' in html
    assert 'id="view-freshness"' in html and 'id="dead-letter-count"' not in html  # the sync's health: operators'
    assert 'id="dead-letter-count"' in operator.get("/").content.decode()
    assert 'href="/categories/Home%20%26%20Garden%2FTools/?from=' in html  # a free-text name, quoted
    assert " style=" not in html and "<style" not in html and "<script>" not in html  # the CSP allows neither


def test_home_charts_take_a_range(staff: Client, figure_orders_seeded: list[str]) -> None:
    response = staff.get("/?from=2026-03-01&to=2026-03-07")
    html = response.content.decode()
    assert bar_keys(html, "chart-orders") == [f"2026-03-0{n}" for n in range(1, 8)]
    assert response.context["periods"][2].days == 30  # the key figures stay "up to today"
    assert {t.category: (t.units, t.revenue) for t in response.context["category_totals"]} == oracle_category_totals(
        date(2026, 3, 1), date(2026, 3, 7)
    )


@pytest.mark.parametrize(
    "query",
    ["from=2026-03-08&to=2026-03-01", "from=2025-01-01&to=2026-03-01", "from=yesterday", "to=2026-02-30"],
)
def test_home_refuses_a_bad_range(staff: Client, tables: None, query: str) -> None:
    response = staff.get(f"/?{query}")
    assert response.status_code == 400
    assert b"Traceback" not in response.content


def test_home_costs_the_same_whatever_the_range_and_the_table(staff: Client, figure_orders_seeded: list[str]) -> None:
    staff.get("/")  # DescribeTable's item count is cached for a few minutes after the first visit
    small = {calls(staff.get("/?from=2026-03-04&to=2026-03-10")), calls(staff.get("/?from=2025-03-11&to=2026-03-10"))}
    place(40, tag="mh", days_back=300)
    sync_now()
    big = {calls(staff.get("/?from=2026-03-04&to=2026-03-10")), calls(staff.get("/?from=2025-03-11&to=2026-03-10"))}
    assert len(small) == 1 and small == big
    # freshness (1) + dead letters (1) + status counters (1 BatchGetItem) + 30 days (1 Query per counter shard)
    # + their refunds (as many) + the charts' range (1 Query per counter shard)
    assert small == {3 + 3 * 4}


def test_home_without_an_admin_view_still_links_everywhere(
    staff: Client, shop_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adminview.tables import ADMIN_VIEW_TABLE

    monkeypatch.setattr(ADMIN_VIEW_TABLE.model.Meta, "table_name", "AdminView-none")  # not the module's
    monkeypatch.setenv("ADMIN_VIEW_TABLE_NAME", "AdminView-none")
    response = staff.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="numbers-problem"' in html and "Pending orders" in html and "Traceback" not in html


# --- /stats/daily/ -----------------------------------------------------------------------------------------


def test_daily_page_shows_every_day_as_chart_and_table(staff: Client, figure_orders_seeded: list[str]) -> None:
    response = staff.get("/stats/daily/?from=2026-02-01&to=2026-03-10")
    html = response.content.decode()
    want = oracle_days(date(2026, 2, 1), DAY)
    rows = [[r.day.isoformat(), r.orders, r.units, r.revenue, r.cancelled] for r in response.context["rows"]]
    assert rows == want
    assert html.count('class="day-row"') == len(want) == 38
    assert bar_keys(html, "chart-orders") == [w[0] for w in want]
    assert 'id="daily"' in html and 'href="#daily"' in html


def test_daily_csv_is_the_contract(staff: Client, figure_orders_seeded: list[str]) -> None:
    rows = csv_rows(staff.get("/stats/daily/?from=2026-02-01&to=2026-03-10&format=csv"))
    assert rows[0] == ["date", "orders", "units", "revenue", "cancelled"]
    want = oracle_days(date(2026, 2, 1), DAY)
    assert rows[1:] == [[d, str(o), str(u), str(r), str(c)] for d, o, u, r, c in want]


@pytest.mark.parametrize("page", ["daily", "categories"])
@pytest.mark.parametrize(
    "query",
    [
        "from=2026-03-08&to=2026-03-01",
        "from=2025-01-01&to=2026-03-01&format=csv",
        "from=2026-13-01&format=csv",
        "to=tomorrow",
        "format=xml",
    ],
)
def test_stats_pages_refuse_bad_ranges(staff: Client, tables: None, page: str, query: str) -> None:
    response = staff.get(f"/stats/{page}/?{query}")
    assert response.status_code == 400
    assert int(response["X-DynamoDB-Calls"]) == 0 and b"Traceback" not in response.content


@pytest.mark.parametrize("page", ["daily", "categories"])
def test_stats_pages_cost_the_same_whatever_the_range_and_the_table(
    staff: Client, figure_orders_seeded: list[str], page: str
) -> None:
    week, year = f"/stats/{page}/?from=2026-03-04&to=2026-03-10", f"/stats/{page}/?from=2025-03-11&to=2026-03-10"
    small = {calls(staff.get(week)), calls(staff.get(year)), calls(staff.get(year + "&format=csv"))}
    place(40, tag=f"m{page}", days_back=300)
    sync_now()
    big = {calls(staff.get(week)), calls(staff.get(year)), calls(staff.get(year + "&format=csv"))}
    assert small == big == {1 + 4, 4}  # the page: freshness + one Query per counter shard; its CSV: the Queries


# --- /stats/categories/ ------------------------------------------------------------------------------------


def test_categories_page_shows_totals_chart_and_every_day(staff: Client, figure_orders_seeded: list[str]) -> None:
    response = staff.get("/stats/categories/?from=2026-02-01&to=2026-03-10")
    html = response.content.decode()
    oracle = expected()["categories"]
    want = sorted(
        (day, name, int(units), revenue.quantize(CENT))
        for (day, name), (units, revenue) in oracle.items()
        if "2026-02-01" <= day <= "2026-03-10" and units > 0
    )
    assert [(r.day.isoformat(), r.category, r.units, r.revenue) for r in response.context["rows"]] == want
    assert html.count('class="category-row"') == len(want)
    totals = oracle_category_totals(date(2026, 2, 1), DAY)
    assert {t.category: (t.units, t.revenue) for t in response.context["category_totals"]} == totals
    assert [t.units for t in response.context["category_totals"]] == sorted(
        (t[0] for t in totals.values()), reverse=True
    )
    assert 'id="categories"' in html and 'id="category-totals"' in html
    assert escape(ODD_CATEGORY) in html and "/categories/Home%20&amp;%20Garden/Tools/?from=" in html


def test_categories_csv_is_the_contract(staff: Client, figure_orders_seeded: list[str]) -> None:
    rows = csv_rows(staff.get("/stats/categories/?from=2026-02-01&to=2026-03-10&format=csv"))
    assert rows[0] == ["date", "category", "units", "revenue"]
    oracle = expected()["categories"]
    want = sorted(
        [day, name, str(int(units)), str(revenue.quantize(CENT))]
        for (day, name), (units, revenue) in oracle.items()
        if "2026-02-01" <= day <= "2026-03-10" and units > 0
    )
    assert rows[1:] == want


# --- /stats/status/ ----------------------------------------------------------------------------------------


def test_status_page_and_csv(staff: Client, figure_orders_seeded: list[str]) -> None:
    response = staff.get("/stats/status/")
    want = expected()["status"]
    assert response.context["counts"] == want
    html = response.content.decode()
    assert bar_keys(html, "chart-status") == ["PENDING", "SHIPPED", "DELIVERED", "CANCELLED"]
    assert 'href="/orders/?status=DELIVERED"' in html  # every status has its list
    rows = csv_rows(staff.get("/stats/status/?format=csv"))
    assert rows == [["status", "orders"], *([s, str(n)] for s, n in want.items())]
    first = calls(response)
    place(30, tag="ms")
    sync_now()
    assert calls(staff.get("/stats/status/")) == first == 2  # freshness + one BatchGetItem
