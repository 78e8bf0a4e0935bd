"""A phone's screen (375 x 812 px) in headless Chromium (``tests/dashboard/tour.py``: skipped without it): the
header and the menu leave the screen to the page (the areas and the jump box open from the Menu button, a popover),
and a list shows its key columns without scrolling sideways (its secondary columns are left out). On a desktop the
top bar is as it was: every area in view, no Menu button.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.dashboard import tour

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = tour.Look("light", tour.NARROW, 812)
MAX_TOP_BAR = 120  # px of a phone's 812 above the breadcrumbs: the header, and the menu when closed
KEY_COLUMNS = 3  # order, customer, date


def box(page: Any, selector: str) -> dict[str, float]:
    found: dict[str, float] | None = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not shown"
    return found


def test_a_phone_gets_the_page_not_the_menu(live_server: Any, tour_shop: None, tour_browser: Any) -> None:
    tour.staff_user()
    with tour.tab(tour_browser, PHONE) as page:
        tour.log_in(page, live_server.url)
        page.goto(live_server.url + "/orders/pending/")
        crumbs = box(page, "nav[aria-label=Breadcrumbs]")
        assert crumbs["y"] <= MAX_TOP_BAR, f"the header and the menu take {crumbs['y']} px"
        assert not page.locator("#nav-areas").is_visible() and not page.locator("#jump").is_visible()

        page.click("#menu-button")  # the areas and the jump box, over the page
        assert page.locator("#nav-areas a[href='/orders/pending/']").is_visible()
        assert page.locator("#jump input[name=id]").is_visible()
        page.click("#menu-close")
        assert not page.locator("#nav-areas").is_visible()

        table = box(page, "#pending-orders")
        scroller = box(page, "#pending-orders >> xpath=..")
        assert scroller["x"] + scroller["width"] <= PHONE.width
        for n in range(1, KEY_COLUMNS + 1):
            heading = box(page, f"#pending-orders thead th:nth-child({n})")
            assert heading["x"] + heading["width"] <= scroller["x"] + scroller["width"], (n, heading, scroller)
            assert heading["x"] >= table["x"]
        assert page.locator("#pending-orders th.secondary").count() == 2
        assert not page.locator("#pending-orders th.secondary").first.is_visible()  # left out on a phone
        assert not page.locator("#pending-orders td.secondary").first.is_visible()


def test_a_desktop_keeps_the_top_bar(live_server: Any, tour_shop: None, tour_browser: Any) -> None:
    tour.staff_user()
    with tour.tab(tour_browser, tour.Look("light", tour.DESKTOP)) as page:
        tour.log_in(page, live_server.url)
        page.goto(live_server.url + "/orders/pending/")
        assert not page.locator("#menu-button").is_visible()
        assert page.locator("#nav-areas a[href='/orders/pending/']").is_visible()
        assert page.locator("#jump input[name=id]").is_visible()
        assert page.locator("#pending-orders th.secondary").first.is_visible()
        assert not page.locator("#operations-menu a[href='/sync/']").is_visible()  # a closed menu
        page.click("#operations-menu summary")
        page.click("#operations-menu a[href='/sync/']")
        page.wait_for_url("**/sync/")
        assert page.locator("#operations-menu summary.current").count() == 1
