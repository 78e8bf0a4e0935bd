"""Staff work in a real browser (headless Chromium via Playwright, as in ``test_browser``): bulk ship three
pending orders and see each row's outcome in place, find the changes on ``/activity/``, and watch the live
queue announce an order placed meanwhile by another thread; download the pick list, print packing slips, and
cancel with a reason. Skips when chromium or Playwright is missing."""

from __future__ import annotations

import csv
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from shop import orders
from shop.orders import OrderLine
from tests.adminview_helpers import sync_now
from tests.dashboard.test_browser import ARTIFACTS, log_in, page, place

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["page"]  # the fixture, shared with test_browser


def test_bulk_ship_activity_and_live_queue(page: Any, live_server: Any, shop_table: str, admin_view_table: str) -> None:
    ids = place(4)  # oldest first
    sync_now()
    log_in(page, live_server.url)
    page.goto(live_server.url + "/orders/?status=PENDING")
    chosen = ids[1:]
    for oid in chosen:
        page.check(f"input[name=order][value='{oid}']")
    url_before = page.url
    page.click("button.bulk-ship")
    for oid in chosen:
        page.wait_for_selector(f"#outcome-{oid}[data-code='200']")
        assert "done: SHIPPED" in page.locator(f"#outcome-{oid}").inner_text()
        assert page.locator(f"#status-{oid}").inner_text() == "SHIPPED"
        assert page.locator(f"#select-{oid} input").count() == 0  # no longer selectable on this list
    assert page.url == url_before  # swapped in place
    assert "3 done" in page.locator("#bulk-summary").inner_text()
    assert page.locator(f"#outcome-{ids[0]}").inner_text() == ""  # not selected, untouched
    page.locator("#dynamodb-cost summary").click()  # the footer shows the last htmx request's own calls
    page.wait_for_selector("#dynamodb-cost .refreshed")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "bulk-ship.png"), full_page=True)
    assert [orders.order_collection(o).order.status for o in ids] == ["PENDING", "SHIPPED", "SHIPPED", "SHIPPED"]

    sync_now()
    page.goto(live_server.url + "/activity/?limit=2")
    page.click("a.load-more")
    page.locator("tr.activity-row").nth(2).wait_for()
    for oid in chosen:
        row = page.locator(f"tr.activity-row[data-order-id='{oid}'][data-action='ship']")
        assert row.count() == 1 and "browser" in row.inner_text()
    page.locator("#dynamodb-cost summary").click()  # no polling here: the panel is the "load more" request's
    assert "/activity/" in page.locator("#dynamodb-cost .refreshed").inner_text()
    queries = page.locator("#dynamodb-cost tbody tr", has_text="Query")
    assert queries.count() == 4  # one Query per activity shard

    page.goto(live_server.url + "/orders/?status=PENDING")
    assert page.locator("tr.order-row").count() == 1
    assert page.locator("a.new-orders").count() == 0

    def another_member_of_staff() -> None:
        orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], placed_at=datetime(2026, 11, 2))

    worker = threading.Thread(target=another_member_of_staff)
    worker.start()
    worker.join()
    sync_now()
    page.wait_for_selector("a.new-orders")  # the list polls every 10 s (the tab waits up to tour.HANG_MS)
    assert page.locator("a.new-orders").inner_text() == "1 new order — show them"
    assert page.locator("tr.order-row").count() == 1  # announced, not reloaded
    page.screenshot(path=str(ARTIFACTS / "live-queue.png"), full_page=True)
    page.click("a.new-orders")
    page.wait_for_selector("tr.order-row >> nth=1")
    assert page.locator("tr.order-row").count() == 2
    assert not [e for e in page.console_errors if "Content Security Policy" in e or "htmx" in e.lower()]


def test_bulk_cancel_asks_first_and_an_empty_selection_says_so(
    page: Any, live_server: Any, shop_table: str, admin_view_table: str
) -> None:
    ids = place(3)
    sync_now()
    log_in(page, live_server.url)
    page.goto(live_server.url + "/orders/?status=PENDING")
    # nothing ticked: the summary line says so in place, and nothing changes
    page.click("button.bulk-cancel")
    page.wait_for_selector("#bulk-summary [role=alert]")
    assert page.locator("#bulk-summary").inner_text() == "select at least one order"
    # two ticked: the orders to cancel are listed above the buttons, nothing is cancelled yet
    for oid in ids[:2]:
        page.check(f"input[name=order][value='{oid}']")
    page.click("button.bulk-cancel")
    page.wait_for_selector("#bulk-confirmation")
    assert page.locator("#bulk-confirmation h2").inner_text() == "Cancel 2 orders?"
    assert page.locator("#bulk-confirm-orders tbody tr").count() == 2
    assert [orders.order_collection(o).order.status for o in ids] == ["PENDING"] * 3
    # confirmed: those two are cancelled in place, the third untouched
    page.click("#bulk-confirm-form button[type=submit]")
    for oid in ids[:2]:
        page.wait_for_selector(f"#outcome-{oid}[data-code='200']")
    assert page.locator("#bulk-confirmation").count() == 0
    assert [orders.order_collection(o).order.status for o in ids] == ["CANCELLED", "CANCELLED", "PENDING"]


def test_the_warehouse_picks_prints_slips_and_cancels_with_a_reason(
    page: Any, live_server: Any, shop_table: str, admin_view_table: str
) -> None:
    ids = place(3)  # one line each
    sync_now()
    log_in(page, live_server.url)
    # the pending list's pick list: one row per line of every pending order, with where it ships
    with page.expect_download() as download:
        page.click("#pick-list-link")
    rows = list(csv.reader(Path(download.value.path()).read_text().splitlines()))
    assert rows[0] == [
        *("order_id", "date", "customer_name", "product_id", "product_name", "quantity"),
        *("name", "street", "city", "zip", "country"),
    ]
    assert sorted(row[0] for row in rows[1:]) == sorted(ids) and all(row[5] == "1" for row in rows[1:])
    # an order's packing slip, from its page: who, where to, what
    page.goto(f"{live_server.url}/orders/{ids[0]}/")
    page.click("#order-slip-link")
    page.wait_for_url(f"**/orders/{ids[0]}/slip/")
    slip = page.locator(f"section.slip[data-order-id='{ids[0]}']")
    assert slip.locator(".slip-line").count() == 1 and slip.locator(".ship-to address").count() == 1
    # the slips of two orders ticked on the list, one page
    page.goto(live_server.url + "/orders/pending/")
    for oid in ids[1:]:
        page.check(f"input[name=order][value='{oid}']")
    page.click("button.bulk-slips")
    page.wait_for_url("**/orders/slips/**")
    assert sorted(page.locator("section.slip").evaluate_all("(s) => s.map((e) => e.dataset.orderId)")) == ids[1:]
    # a cancel says why: "other" needs its words, said in place; then it cancels, and activity shows the reason
    page.goto(f"{live_server.url}/orders/{ids[0]}/")
    page.on("dialog", lambda dialog: dialog.accept())  # "Cancel order ...?"
    cancel = page.locator("form:has(button.cancel)")
    cancel.locator("select[name=reason]").select_option("other")
    cancel.locator("button.cancel").click()
    page.wait_for_selector("#order-status .alert")
    assert "was not cancelled" in page.locator("#order-status").inner_text()
    assert orders.order_collection(ids[0]).order.status == "PENDING"
    cancel = page.locator("form:has(button.cancel)")
    cancel.locator("select[name=reason]").select_option("other")
    cancel.locator("input[name=reason_text]").fill("customer moved abroad")
    cancel.locator("button.cancel").click()
    page.wait_for_selector("#order-status .notice")
    assert orders.order_collection(ids[0]).order.status == "CANCELLED"
    sync_now()
    activity = page.request.get(live_server.url + "/activity/?format=csv").text()
    assert any(ids[0] in line and "customer moved abroad" in line for line in activity.splitlines())
