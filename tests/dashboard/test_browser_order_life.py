"""An order's whole life as staff work it, in a real browser (headless Chromium via Playwright, the worker's one
browser, the tour's tabs): a clerk of ``fulfilment`` creates an order by phone, paid with a manual payment's
reference, edits a line down (what was paid above the new total is refunded at once), ships two of three units and
then the rest; a member of ``finance`` makes a goodwill refund from the order page; the sender then mails the
customer once per notification through Django's file backend. Another order is created with its payment due, after
a first try refused in place for too little stock. axe-core finds no violation on the create and edit forms and on
the partly shipped order. Skips when chromium or Playwright is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import override_settings

from tests import factories
from tests.dashboard.test_browser_returns import member, signed_in, violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
FILE_BACKEND = "django.core.mail.backends.filebased.EmailBackend"


def create_order(page: Any, base: str, quantities: dict[str, str], **fields: str) -> None:
    """From the orders list: the products chosen for customer 1001, their quantities typed in, the payment chosen
    (``payment``, and ``reference`` when paid), then "Create order" clicked."""
    page.goto(base + "/orders/")
    page.click("#create-order")
    page.wait_for_url("**/orders/create/")
    page.fill("#id_products", ",".join(quantities))
    page.fill("#id_pick_customer", "1001")
    page.click("#order-create-products button[type=submit]")
    page.wait_for_selector("#order-create-form")
    assert violations(page) == []
    for pid, quantity in quantities.items():
        page.fill(f"#order-create-form input[name=quantity-{pid}]", quantity)
    page.select_option("#order-create-form select[name=payment]", fields.pop("payment"))
    for name, value in fields.items():
        page.fill(f"#order-create-form [name={name}]", value)
    page.click("#order-create-form button.create-order")


def order_state(page: Any, base: str, oid: str) -> dict[str, Any]:
    """The order as ``?format=json`` gives it now (the shop table's)."""
    found: dict[str, Any] = page.request.get(f"{base}/orders/{oid}/?format=json").json()
    return found


def status_of(page: Any, which: str) -> str:
    """The order page's payment or fulfilment status, in its words."""
    return str(page.locator(f"#{which}-status").inner_text()).lower()


def shipped_of(page: Any, product_id: str) -> str:
    """A line's quantity cell on the order page: "shipped / ordered" while part of the order has shipped."""
    return str(page.locator(f"#order-items tr:has(a[href='/products/{product_id}/buyers/']) td").nth(2).inner_text())


def ship(page: Any, tracking: str, **quantities: str) -> None:
    """Ship from the order page with UPS and ``tracking``, ``quantities`` units of each line given (by product id),
    and wait for the status to be swapped in with its notice."""
    form = page.locator("form.ship-form")
    form.locator("select[name=carrier]").select_option("UPS")
    form.locator("input[name=tracking_number]").fill(tracking)
    for pid, units in quantities.items():
        form.locator(f"input[name=quantity-{pid}]").fill(units)
    form.locator("button.ship").click()
    page.wait_for_selector("#order-status .notice")


@pytest.mark.timeout(300)
def test_an_order_created_paid_edited_shipped_in_two_parts_refunded_and_its_customer_told(
    live_server: Any, tour_browser: Any, shop_table: str, admin_view_table: str, tmp_path: Path
) -> None:
    factories.shop_with(customers=1, products=2, stock_each=10)  # both at 10.50
    clerk, controller = member("carl", "fulfilment"), member("fay", "finance")
    base = live_server.url
    with signed_in(tour_browser, base, clerk) as page:
        # a phone order, paid by card over the phone: 4 x 2001 and 1 x 2002
        create_order(page, base, {"2001": "4", "2002": "1"}, payment="paid", reference="ph-4711")
        page.wait_for_url("**/orders/*/")
        oid = page.url.rstrip("/").rsplit("/", 1)[-1]
        assert status_of(page, "payment") == "paid"
        assert status_of(page, "fulfilment") == "unfulfilled"
        found = order_state(page, base, oid)
        assert (found["status"], found["total"], found["paid"], found["due"]) == ("PENDING", "52.50", "52.50", "0.00")

        # the customer wants one mug fewer: the edit refunds what was paid above the new total, at once
        page.click("#order-edit-link")
        page.wait_for_url(f"**/orders/{oid}/edit/")
        assert violations(page) == []
        page.fill("#order-edit-form input[name=quantity-2001]", "3")
        page.click("#order-edit-form button.edit-order")
        page.wait_for_url(f"**/orders/{oid}/")
        refunds = page.locator("#order-refunds tr.refund-row")
        assert refunds.count() == 1 and "10.50" in refunds.inner_text() and "order edit" in refunds.inner_text()
        found = order_state(page, base, oid)
        assert (found["total"], found["refunded"], found["payment_status"]) == ("42.00", "10.50", "partially_refunded")

        # two of the three units of 2001 ship now, 2002 not yet: the order stays pending
        ship(page, "1Z0001", **{"2001": "2", "2002": "0"})
        assert page.locator("#order-status [data-status]").get_attribute("data-status") == "PENDING"
        page.reload()
        assert (shipped_of(page, "2001"), shipped_of(page, "2002")) == ("2 / 3", "0 / 1")
        assert status_of(page, "fulfilment") == "partially fulfilled"
        assert violations(page) == []  # the order page with a partial shipment, a payment and a refund
        # then the rest, the quantities as offered (what is left of each line)
        assert page.locator("form.ship-form input[name=quantity-2001]").input_value() == "1"
        ship(page, "1Z0002")
        assert page.locator("#order-status [data-status]").get_attribute("data-status") == "SHIPPED"
        page.reload()
        assert (shipped_of(page, "2001"), shipped_of(page, "2002")) == ("3", "1")  # all of it
        assert status_of(page, "fulfilment") == "fulfilled"
        assert page.locator("#order-refunds form, #refund-form").count() == 0  # money is finance's

    with signed_in(tour_browser, base, controller) as page:
        # it arrived late: a goodwill refund from the order page, with its reason
        page.goto(f"{base}/orders/{oid}/")
        page.fill("#refund-form input[name=amount]", "5.00")
        page.fill("#refund-form input[name=reason]", "Goodwill: arrived a week late")
        page.fill("#refund-form input[name=reference]", "re-late-1")
        page.click("#refund-form button.refund")
        page.locator("#order-refunds tr.refund-row").nth(1).wait_for()
        assert "re-late-1" in page.locator("#order-refunds").inner_text()
        found = order_state(page, base, oid)
        assert (found["refunded"], found["payment_status"]) == ("15.50", "partially_refunded")

        # the sender mails each notification once, through the file backend
        with override_settings(EMAIL_BACKEND=FILE_BACKEND, EMAIL_FILE_PATH=str(tmp_path)):
            call_command("send_notifications", "--once")
            call_command("send_notifications", "--once")  # nothing left to send
        # the file backend appends each message of one connection to its file, each ending in a line of dashes
        files = [path.read_text() for path in sorted(tmp_path.iterdir())]
        mails = [m for text in files for m in text.split("-" * 79 + "\n") if m.strip()]
        page.reload()
        kinds = page.locator("#order-notifications tr.notification-row")
        assert sorted(kinds.nth(n).get_attribute("data-kind") for n in range(kinds.count())) == sorted(
            ["created", "edited", "shipped", "shipped", "refunded"]
        )
        assert len(mails) == kinds.count() and all("To: c1001@example.com" in mail for mail in mails)
        text = "\n".join(mails)
        assert f"thank you for your order {oid}" in text
        assert "it now totals $42.00" in text
        for tracking in ("1Z0001", "1Z0002"):
            assert f"https://www.ups.com/track?tracknum={tracking}" in text
        assert "we have refunded 5.00" in text
        assert page.locator("#order-notifications").inner_text().count("sent ") == len(mails)
        rows = page.locator("#order-timeline tr.timeline-row[data-event=notified]")
        assert rows.count() == len(mails)


@pytest.mark.timeout(300)
def test_an_order_created_with_its_payment_due_after_too_little_stock_is_said_in_place(
    live_server: Any, tour_browser: Any, shop_table: str, admin_view_table: str
) -> None:
    factories.shop_with(customers=1, products=2, stock_each=10)
    base = live_server.url
    with signed_in(tour_browser, base, member("carl", "fulfilment")) as page:
        # more than the warehouse holds: 400, the form again with what was wrong, nothing placed
        create_order(page, base, {"2001": "11", "2002": "1"}, payment="due")
        page.wait_for_selector("#order-create-form .alert")
        assert "2001" in page.locator("#order-create-form .alert").inner_text()
        assert page.url.endswith("/orders/create/")
        # fewer, the price of 2002 lowered for a discount, to be paid later
        page.fill("#order-create-form input[name=quantity-2001]", "2")
        page.fill("#order-create-form input[name=price-2002]", "8.00")
        page.click("#order-create-form button.create-order")
        page.wait_for_url("**/orders/*/")
        oid = page.url.rstrip("/").rsplit("/", 1)[-1]
        assert status_of(page, "payment") == "unpaid"
        found = order_state(page, base, oid)
        assert (found["status"], found["total"], found["paid"], found["due"]) == ("PENDING", "29.00", "0.00", "29.00")
        assert [(line["product_id"], line["quantity"], line["price"]) for line in found["lines"]] == [
            ("2001", 2, "10.50"),
            ("2002", 1, "8.00"),
        ]
