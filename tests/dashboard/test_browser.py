"""Headless Chromium (Debian's ``/usr/bin/chromium``) driven by Playwright for Python against ``live_server``.

- ``test_htmx_flows_in_a_real_browser``: pending orders come from the selectors' fake (so no view table is
  needed), the order page and ship action hit DynamoDB Local. Proves htmx loads from our static
  files under the CSP, "load more" appends rows, the CSRF header reaches the POST, the status swaps in place.
- ``test_ship_leaves_the_pending_list_after_sync``: the acceptance flow on the real admin view: log in,
  pending orders, load more, open an order, ship it, run the sync, see it leave the pending list.
Both skip cleanly when chromium or Playwright is missing. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from adminview.reads.selectors import OrderRow
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard import tour
from tests.dashboard.conftest import FakeSelectors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "pw-browser-123"


@pytest.fixture
def page(tour_browser: Any) -> Iterator[Any]:
    """A tab in a fresh context of the worker's Chromium, noting the console's errors."""
    context = tour_browser.new_context()
    tab = context.new_page()
    tab.console_errors = []
    tab.on("console", lambda msg: tab.console_errors.append(msg.text) if msg.type == "error" else None)
    tab.set_default_timeout(tour.HANG_MS)
    try:
        yield tab
    finally:
        context.close()


def log_in(page: Any, base: str) -> None:
    user = User.objects.create_user("browser", password=PASSWORD, is_staff=True)
    user.groups.add(Group.objects.get_or_create(name="fulfilment")[0])
    user.groups.add(Group.objects.get_or_create(name="operators")[0])  # the footer lists each DynamoDB call
    page.goto(base + "/orders/pending/")
    assert "/accounts/login/" in page.url
    page.fill("#id_username", "browser")
    page.fill("#id_password", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url("**/orders/pending/")


def place(count: int) -> list[str]:
    """``count`` pending orders, oldest first (ids unique per run: see test_invoices.invoices)."""
    factories.shop_with(customers=2, products=2)
    tag = uuid.uuid4().hex[:6]
    base = datetime(2026, 11, 1, 9, 0)
    ids = []
    for n in range(count):
        oid = f"b{n}-{tag}"
        orders.order_place(
            customer_id=f"{1001 + n % 2}",
            lines=[OrderLine(f"{2001 + n % 2}", 1)],
            placed_at=base + timedelta(minutes=n),
            order_id=oid,
        )
        ids.append(oid)
    return ids


def test_htmx_flows_in_a_real_browser(page: Any, live_server: Any, shop_table: str, fake_av: FakeSelectors) -> None:
    ids = place(3)
    fake_av.pending = [
        OrderRow(oid, "1001", datetime(2026, 11, 1, 9, n), "PENDING", None, 1)
        for n, oid in reversed(list(enumerate(ids)))
    ]
    log_in(page, live_server.url)
    page.goto(live_server.url + "/orders/pending/?limit=2")
    rows = page.locator("tr.order-row")
    assert rows.count() == 2
    page.click("a.load-more")
    page.locator("tr.order-row").nth(2).wait_for()  # no JS eval: the CSP forbids it
    assert page.locator("a.load-more").count() == 0
    assert rows.nth(2).get_attribute("data-order-id") == ids[0]

    page.click(f"a[href='/orders/{ids[0]}/']")
    page.wait_for_url(f"**/orders/{ids[0]}/")
    assert page.locator("#order-status [data-status]").get_attribute("data-status") == "PENDING"
    url_before = page.url
    page.click("button.ship")
    page.wait_for_selector("#order-status [data-status='SHIPPED']")
    assert page.url == url_before  # swapped in place, no navigation
    assert page.locator("#order-status .notice").inner_text() == f"Order {ids[0]} shipped."
    assert orders.order_collection(ids[0]).order.status == "SHIPPED"
    page.wait_for_selector(f"#order-shipments >> text={ids[0]}-1")  # shipments refreshed out of band
    page.locator("#dynamodb-cost summary").click()
    assert page.locator("#dynamodb-cost td", has_text="Query").count() >= 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "order-shipped-htmx.png"), full_page=True)
    assert not [e for e in page.console_errors if "Content Security Policy" in e or "htmx" in e.lower()]


def test_ship_leaves_the_pending_list_after_sync(
    page: Any, live_server: Any, shop_table: str, admin_view_table: str
) -> None:
    ids = place(3)
    sync_now()
    log_in(page, live_server.url)
    page.goto(live_server.url + "/orders/pending/?limit=2")
    assert page.locator("tr.order-row").count() == 2
    page.click("a.load-more")
    page.locator("tr.order-row").nth(2).wait_for()  # no JS eval: the CSP forbids it
    shown = [page.locator("tr.order-row").nth(i).get_attribute("data-order-id") for i in range(3)]
    assert shown == list(reversed(ids))  # newest first

    target = ids[1]
    page.click(f"a[href='/orders/{target}/']")
    page.wait_for_url(f"**/orders/{target}/")
    page.click("button.ship")
    page.wait_for_selector("#order-status [data-status='SHIPPED']")
    sync_now()
    page.goto(live_server.url + "/orders/pending/")
    remaining = [
        page.locator("tr.order-row").nth(i).get_attribute("data-order-id")
        for i in range(page.locator("tr.order-row").count())
    ]
    assert remaining == [ids[2], ids[0]]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "pending-after-ship.png"), full_page=True)
