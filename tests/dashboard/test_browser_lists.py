"""The order lists' sort and date filter, the search page and both on a phone, in headless Chromium on the tour's
seeded shop (``tests/dashboard/tour.py``: seeded once for the module, skipped without Chromium; the one-box test
adds a customer no other test looks for). The search box asks as it is typed in (htmx, after a pause, the address
following) and works as a plain form without JavaScript; "load more" appends rows."""

from __future__ import annotations

from typing import Any

import pytest

from shop import orders
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard import tour

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = tour.Look("light", tour.NARROW, 812)
DESKTOP = tour.Look("light", tour.DESKTOP)
SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
PENDING_OLDEST_FIRST = ["5004", "5005", "5006", "5007", "5008"]  # tour.seed(): placed one an hour, in this order


def order_ids(page: Any) -> list[str]:
    rows = page.locator("tr.order-row")
    return [rows.nth(i).get_attribute("data-order-id") for i in range(rows.count())]


def test_staff_sort_a_list_oldest_first_and_narrow_it_to_days(
    live_server: Any, tour_shop: None, tour_browser: Any
) -> None:
    tour.staff_user()
    with tour.tab(tour_browser, DESKTOP) as page:
        tour.log_in(page, live_server.url)
        page.goto(live_server.url + "/orders/pending/")
        assert order_ids(page) == list(reversed(PENDING_OLDEST_FIRST))  # newest first
        # when they choose oldest first and press Show
        page.select_option("#id_sort", "oldest")
        page.click("#list-filter button[type=submit]")
        page.wait_for_url("**sort=oldest**")
        assert order_ids(page) == PENDING_OLDEST_FIRST
        assert page.locator("#live-queue").count() == 0  # no new orders come at the top of this list
        # and then only the orders placed on 4 November
        page.fill("#id_from", "2026-11-04")
        page.fill("#id_to", "2026-11-04")
        page.click("#list-filter button[type=submit]")
        page.wait_for_url("**from=2026-11-04**")
        assert order_ids(page) == ["5007", "5008"]
        # "load more" keeps the order
        page.goto(live_server.url + "/orders/pending/?sort=oldest&limit=2")
        page.click("a.load-more")
        page.locator("tr.order-row").nth(3).wait_for()
        assert order_ids(page)[:4] == PENDING_OLDEST_FIRST[:4]
        # a date that is none: the page says so beside the field
        page.goto(live_server.url + "/orders/pending/?from=2026-11-31")
        assert page.locator("#filter-errors").is_visible() and page.locator("tr.order-row").count() == 0


def test_the_search_box_finds_as_it_is_typed_in_and_pages_on(
    live_server: Any, tour_shop: None, tour_browser: Any
) -> None:
    tour.staff_user()
    with tour.tab(tour_browser, DESKTOP) as page:
        tour.log_in(page, live_server.url)
        page.goto(live_server.url + "/search/")
        # when a name is typed in, without pressing anything
        page.locator("#id_q").press_sequentially("lovel", delay=50)
        page.locator("tr.found-row").first.wait_for()
        # then the customers found show, linking to their pages, and the address follows the search
        assert page.locator("tr.found-row").count() == 3  # the tour's three customers are all Ada Lovelace
        assert "/search/?q=lovel" in page.url
        page.locator("tr.found-row a").first.click()
        page.wait_for_url("**/customers/*/")
        # a product by a word of its name; "load more" appends the next rows
        page.goto(live_server.url + "/search/?q=product&limit=2")
        assert page.locator("tr.found-row").count() == 2
        page.click("a.load-more")
        page.locator("tr.found-row").nth(2).wait_for()
        assert page.locator("tr.found-row[data-kind=product]").count() == 3
        # one letter: the error shows where the results go
        page.goto(live_server.url + "/search/")
        page.locator("#id_q").press_sequentially("x", delay=50)
        page.locator("#search-results .alert, #search-results [role=alert]").first.wait_for()


def test_one_box_finds_a_customer_by_name_or_email_and_an_order_by_tracking_number(
    live_server: Any, tour_shop: None, tour_browser: Any
) -> None:
    # given the tour's shop and Grace Hopper, whose order went out with a tracking number
    factories.customer("1009", name="Grace Hopper", email="grace.hopper.100116@example.com")
    payment = orders.PaymentSpec("credit card", "10.50", transaction_id="tx-grace-1")
    orders.order_place(customer_id="1009", lines=[orders.OrderLine("2001", 1)], payments=[payment], order_id="5091")
    orders.order_ship(order_id="5091", carrier="UPS", tracking_number="1Z999AA10123456784")
    sync_now()
    tour.staff_user()
    with tour.tab(tour_browser, DESKTOP) as page:
        tour.log_in(page, live_server.url)
        # when her name is typed in the search box: she shows with her order
        page.goto(live_server.url + "/search/")
        page.locator("#id_q").press_sequentially("Grace Hop", delay=50)
        page.locator("tr.found-row[data-id='1009']").wait_for()
        assert page.locator("tr.found-row[data-id='1009'] .found-order a").inner_text().startswith("Order 5091")
        # a fragment of her email in the top bar's box goes straight to her
        page.fill("#jump input[name=id]", "hopper.100116")
        page.click("#jump button[type=submit]")
        page.wait_for_url("**/customers/1009/")
        # and the tracking number to the order
        page.fill("#jump input[name=id]", "1z999aa10123456784")
        page.click("#jump button[type=submit]")
        page.wait_for_url("**/orders/5091/")


def test_the_search_works_without_javascript(live_server: Any, tour_shop: None, tour_browser: Any) -> None:
    tour.staff_user()
    context = tour_browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(tour.HANG_MS)
    try:
        tour.log_in(page, live_server.url)
        page.goto(live_server.url + "/search/")
        page.fill("#id_q", "ada")
        page.click("#search-form button[type=submit]")
        page.wait_for_url("**/search/?q=ada")
        assert page.locator("tr.found-row[data-kind=customer]").count() == 3
    finally:
        context.close()


@pytest.mark.parametrize(
    ("path", "table", "key_columns"),
    [
        ("/search/?q=ada", "#search-found", 3),  # name, kind, id
        ("/orders/pending/?sort=oldest", "#pending-orders", 4),  # select, order, customer, date
        ("/orders/?status=SHIPPED", "#shipped-orders", 4),
    ],
)
def test_the_new_pages_fit_a_phone(
    live_server: Any, tour_shop: None, tour_browser: Any, path: str, table: str, key_columns: int
) -> None:
    tour.staff_user()
    with tour.tab(tour_browser, PHONE) as page:
        tour.log_in(page, live_server.url)
        page.goto(live_server.url + path)
        # the page never scrolls sideways; the list's key columns are in view, its secondary ones left out
        assert page.evaluate(SIDEWAYS) <= 0
        scroller = page.locator(f"{table} >> xpath=..").bounding_box()
        assert scroller is not None and scroller["x"] + scroller["width"] <= PHONE.width
        for n in range(1, key_columns + 1):
            heading = page.locator(f"{table} thead th:nth-child({n})").bounding_box()
            assert heading is not None and heading["x"] + heading["width"] <= scroller["x"] + scroller["width"], n
        assert page.locator(f"{table} th.secondary").count() >= 1
        assert not page.locator(f"{table} th.secondary").first.is_visible()
        assert page.locator("#list-filter, #search-form").first.is_visible()
