"""A return's whole life in a real browser (headless Chromium via Playwright, the worker's one browser, the tour's
tabs): a member of the ``returns`` group creates a return of both lines of a delivered order from its page,
receives it (one line back in stock, the other damaged) and is refused a refund above what came back, in place;
a member of ``finance`` refunds above it with an override; both leave notes, and the order's timeline tells it
all. axe-core checks the create-return form and the return page. Skips when chromium or Playwright is missing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from returns import access_patterns as rap
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.dashboard import tour
from tests.dashboard.test_accessibility import AXE, RUN_AXE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ORDER = "5101"
PLACED = datetime(2026, 11, 2, 9, 0)
PASSWORD = "pw-returns-123"


def delivered_order() -> None:
    """Order 5101 of customer 1001, delivered from warehouse 301: 2 x 2001 at 10.50 and 2 x 2002 at 11.50 (paid
    44.00)."""
    factories.shop_with(customers=1, products=2, categories=("books",))
    lines = [OrderLine("2001", 2), OrderLine("2002", 2)]
    orders.order_place(customer_id="1001", lines=lines, placed_at=PLACED, order_id=ORDER)
    orders.order_ship(order_id=ORDER, shipped_at=PLACED + timedelta(days=1))
    orders.order_deliver(order_id=ORDER)


def member(username: str, *groups: str) -> str:
    user = User.objects.create_user(username, f"{username}@example.com", PASSWORD, is_staff=True)
    user.groups.add(*(Group.objects.get_or_create(name=name)[0] for name in groups))
    return username


@contextmanager
def signed_in(browser: Any, base: str, username: str) -> Iterator[Any]:
    """A fresh tab (the tour's: desktop, light, axe let in) with ``username`` signed in, on the home page."""
    with tour.tab(browser, tour.LOOKS[0]) as page:
        page.on("dialog", lambda dialog: dialog.accept())  # the refund's "cannot be undone" confirmation
        page.goto(base + "/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
        page.click("form.login button[type=submit]")
        page.wait_for_url(base + "/")
        yield page


def violations(page: Any) -> list[str]:
    """Every axe-core violation on the page as shown (any impact): rule, impact and where."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(RUN_AXE)["violations"]
    return [f"{v['id']} [{v['impact']}]: " + "; ".join(" ".join(n["target"]) for n in v["nodes"][:4]) for v in found]


def line_counts(page: Any, product_id: str) -> list[str]:
    """A line's received, restocked and damaged cells on the return page."""
    cells = page.locator(f"#return-lines tr:has(a[href='/products/{product_id}/']) td")
    return [cells.nth(n).inner_text() for n in (6, 7, 8)]


@pytest.mark.timeout(300)
def test_a_return_from_creation_to_refund_and_notes_in_a_browser(
    live_server: Any, tour_browser: Any, shop_table: str, admin_view_table: str
) -> None:
    assert AXE.exists(), f"{AXE} is missing: run `npm ci` (scripts/bootstrap does)"
    delivered_order()
    clerk, controller = member("rita", "returns"), member("fiona", "returns", "finance")
    base = live_server.url
    with signed_in(tour_browser, base, clerk) as page:
        # the clerk opens the create-return form from the order's page and returns both lines
        page.goto(f"{base}/orders/{ORDER}/")
        page.click("#create-return")
        page.wait_for_url(f"**/orders/{ORDER}/returns/new/")
        assert violations(page) == []
        page.fill("input[name=quantity-2001]", "1")
        page.select_option("select[name=reason-2001]", "SIZE")
        page.fill("input[name=quantity-2002]", "1")
        page.select_option("select[name=reason-2002]", "DEFECTIVE")
        page.click("#return-new-form button.create-return")
        page.wait_for_url("**/returns/*/")
        rid = page.url.rstrip("/").rsplit("/", 1)[-1]
        assert page.locator("#return-status [data-status]").get_attribute("data-status") == "APPROVED"
        assert violations(page) == []

        # received into the warehouse proposed (the order's): 2001 back in stock, 2002 damaged
        assert page.locator("#receive-form select[name=warehouse]").input_value() == "301"
        page.fill("input[name=received-2002]", "1")
        page.fill("input[name=restocked-2002]", "0")
        page.click("#receive-form button.receive")
        page.wait_for_selector("#return-status [data-status='RECEIVED']")
        assert line_counts(page, "2001") == ["1", "1", "0"]  # received, restocked, damaged
        assert line_counts(page, "2002") == ["1", "0", "1"]
        assert page.locator("#refund-bound-value").inner_text() == "$22.00"  # 10.50 + 11.50 came back

        # a refund above what came back is refused beside its field, and nothing is refunded
        page.fill("#refund-form input[name=amount]", "30.00")
        page.fill("#refund-form input[name=reference]", "re_browser_1")
        assert page.locator("#refund-form [name=override]").count() == 0  # not offered to the clerk
        page.click("#refund-form button.refund")
        page.wait_for_selector("#return-status.conflict #refund-form .errorlist")
        assert "worth 22.00" in page.locator("#refund-form .errorlist").first.inner_text()
        assert page.locator("#return-status [data-status]").get_attribute("data-status") == "RECEIVED"
        assert rap.refunds_for_order(order_id=ORDER).items == []

        # the clerk notes the return
        page.fill("#note-form textarea[name=text]", "Parcel arrived with a torn box")
        page.click("#note-form button[type=submit]")
        page.wait_for_selector("#notes .note-item")
        assert "torn box" in page.locator("#notes .note-item").first.inner_text()

    with signed_in(tour_browser, base, controller) as page:
        # finance refunds more than came back, with an override and its reason
        page.goto(f"{base}/returns/{rid}/")
        page.fill("#refund-form input[name=amount]", "30.00")
        page.fill("#refund-form input[name=reference]", "re_browser_2")
        page.select_option("#refund-form select[name=override]", "yes")
        page.fill("#refund-form input[name=reason]", "Goodwill: second fault this year")
        page.click("#refund-form button.refund")
        page.wait_for_selector("#return-status [data-status='REFUNDED']")
        (refund,) = rap.refunds_for_order(order_id=ORDER).items
        assert (str(refund.amount), refund.override) == ("30.00", "Goodwill: second fault this year")

        # a note on the order, then its timeline tells the whole story
        page.goto(f"{base}/orders/{ORDER}/")
        page.fill("#note-form textarea[name=text]", "Customer called about the refund")
        page.click("#note-form button[type=submit]")
        page.wait_for_selector("#notes .note-item")
        page.goto(f"{base}/orders/{ORDER}/timeline/")
        rows = page.locator("#order-timeline tr.timeline-row")
        events = [rows.nth(n).get_attribute("data-event") for n in range(rows.count())]
        for event in ("return_requested", "return_approved", "return_received", "refunded"):
            assert events.count(event) == 1, (event, events)
        assert events.count("note") == 2  # the return's and the order's
        text = page.locator("#order-timeline").inner_text()
        assert "Customer called about the refund" in text and "torn box" in text and "30.00" in text
