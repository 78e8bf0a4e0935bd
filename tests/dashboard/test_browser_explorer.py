"""The access-pattern explorer in headless Chromium (see test_browser.py): open /patterns/, run two patterns
through their forms, load more with htmx, download the CSV. The screenshot (test-artifacts/explorer.png) is the
one in docs/explorer.png."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from tests import factories
from tests.dashboard.test_browser import ARTIFACTS, PASSWORD, page  # noqa: F401  (the Chromium fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_run_two_patterns_load_more_and_download_csv(page: Any, live_server: Any, shop_table: str) -> None:  # noqa: F811
    factories.shop_with(customers=1, products=8)  # warehouse 301 holds all 8 products
    user = User.objects.create_user("explorer", password=PASSWORD, is_staff=True)
    user.groups.add(Group.objects.get_or_create(name="operators")[0])  # the explorer is an operations page
    base = live_server.url
    page.goto(base + "/patterns/")
    page.fill("#id_username", "explorer")
    page.fill("#id_password", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url("**/patterns/")
    assert page.locator("tr.pattern-row").count() >= 18

    page.click("a[href='/patterns/getProductInventoryByWarehouseId/']")
    page.fill("input[name=warehouse_id]", "301")
    page.fill("input[name=limit]", "3")
    page.click("#pattern-form button[type=submit]")
    page.wait_for_selector("#pattern-items tr.item-row")
    rows = page.locator("#pattern-items tr.item-row")
    assert rows.count() == 3
    page.click("a.load-more")
    rows.nth(3).wait_for()  # htmx appended the next page
    assert rows.count() == 6
    page.wait_for_selector("pre.request-json >> text=ExclusiveStartKey")  # the second page's request, swapped in
    assert "KeyConditionExpression" in page.locator("pre.request-json").first.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explorer.png"), full_page=True)

    with page.expect_download() as info:
        page.click("a.csv")
    text = Path(info.value.path()).read_text()
    table = list(csv.reader(io.StringIO(text)))
    assert table[0][:2] == ["PK", "SK"]
    assert sorted(r[0] for r in table[1:]) == [f"p#{2001 + n}" for n in range(8)]

    page.goto(base + "/patterns/")
    page.click("a[href='/patterns/getCustomerByCustomerId/']")
    page.fill("input[name=customer_id]", "c#1001")
    page.click("#pattern-form button[type=submit]")
    page.wait_for_selector("#pattern-items tr.item-row")
    assert page.locator("#pattern-items tr.item-row").count() == 1
    assert page.locator("section.request[data-operation]").get_attribute("data-operation") == "GetItem"
    assert page.locator("a.load-more").count() == 0
    assert not [e for e in page.console_errors if "Content Security Policy" in e or "htmx" in e.lower()]
