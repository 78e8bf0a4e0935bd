"""The numbers in headless Chromium: the home page opens on its figures and its charts (SVG bars, drawn on the
server, under the CSP), a category bar leads to the category's orders, and "Numbers" opens a stats page's chart
and table. Screenshots (light and dark) go to ``test-artifacts/``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.adminview.figures_oracle import expected
from tests.adminview_helpers import sync_now
from tests.dashboard.numbers_shop import catalogue, frozen_now, place
from tests.dashboard.test_browser import ARTIFACTS, PASSWORD, page  # noqa: F401 (the page fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.ddb_local]


def test_home_shows_figures_and_charts_and_a_stats_table(
    page: Any,  # noqa: F811
    live_server: Any,
    shop_table: str,
    admin_view_table: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frozen_now(monkeypatch)
    catalogue()
    place(24, tag="b")
    sync_now()
    User.objects.create_user("numbers", password=PASSWORD, is_staff=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + "/")
    page.fill("#id_username", "numbers")
    page.fill("#id_password", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(live_server.url + "/")

    counts = expected()["status"]
    for status, orders in counts.items():
        assert page.locator(f"#status-figures [data-status='{status}'] dd").inner_text() == str(orders)
    assert page.locator("#period-figures tbody tr").count() == 3
    orders_chart = page.get_by_role("img", name=re.compile(r"^Orders placed per day"))  # its accessible name
    assert orders_chart.get_attribute("id") == "chart-orders"
    assert orders_chart.locator("rect.bar").count() == 90
    assert orders_chart.bounding_box()["width"] > 600  # drawn, and scaled to the page
    tallest = max(float(orders_chart.locator("rect.bar").nth(i).get_attribute("height")) for i in range(90))
    assert tallest > 100  # the busiest day's bar nearly fills the plot
    assert page.locator("svg#chart-revenue rect.bar").count() == 90
    categories = page.locator("svg#chart-categories rect.bar")
    assert categories.count() == 4
    fill = categories.first.evaluate("bar => getComputedStyle(bar).fill")
    assert fill not in ("", "none", "rgb(0, 0, 0)")  # coloured from the stylesheet
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "numbers-home.png"), full_page=True)
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(ARTIFACTS / "numbers-home-dark.png"), full_page=True)
    page.emulate_media(color_scheme="light")

    page.locator("svg#chart-categories a").first.click()  # the best-selling category's orders
    page.wait_for_url("**/categories/**")
    assert page.locator("#category-orders tr.order-row").count() > 0

    page.click("nav >> text=Numbers")
    page.wait_for_url("**/stats/daily/")
    assert page.locator("svg#chart-orders rect.bar").count() == 30
    assert page.locator("table#daily tr.day-row").count() == 30
    page.screenshot(path=str(ARTIFACTS / "numbers-daily.png"), full_page=True)
    assert not [e for e in page.console_errors if "Content Security Policy" in e]
