"""Editing in a real browser (headless Chromium via Playwright, as in ``test_browser``): a member of the catalogue
group opens a product's edit form in two tabs, saves a new price in one, gets the 409 of the stale other tab
with what changed meanwhile, saves again from its fresh form, and finds both saves (and nothing of the refused
one) in the product's history. Skips when chromium or Playwright is missing."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command

from tests.dashboard.test_browser import ARTIFACTS, PASSWORD, page
from tests.samples import AWS_MODEL

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["page"]  # the fixture, shared with test_browser


def log_in_to_catalogue(tab: Any, base: str) -> None:
    user = User.objects.create_user("editor", password=PASSWORD, is_staff=True)
    user.groups.add(Group.objects.get_or_create(name="catalogue")[0])
    tab.goto(base + "/products/12345/")
    tab.fill("#id_username", "editor")
    tab.fill("#id_password", PASSWORD)
    tab.click("form.login button[type=submit]")
    tab.wait_for_url("**/products/12345/")


def test_edit_a_price_see_the_stale_tab_refused_and_both_in_history(
    page: Any, live_server: Any, shop_table: str
) -> None:
    call_command("import_workbench", str(AWS_MODEL), stdout=StringIO())
    log_in_to_catalogue(page, live_server.url)
    page.click("#edit-link")
    page.wait_for_url("**/products/12345/edit/")
    stale = page.context.new_page()  # a second tab, opened before the first one saves
    stale.goto(live_server.url + "/products/12345/edit/")
    assert page.input_value("#id_price") == "100" and stale.input_value("#id_price") == "100"

    page.fill("#id_price", "89.90")
    page.click("#edit-form button[type=submit]")
    page.wait_for_url("**/products/12345/")
    assert "Saved: Price" in page.locator("#messages").inner_text()
    assert "89.90" in page.locator("#product-details").inner_text()

    stale.fill("#id_price", "75")
    stale.click("#edit-form button[type=submit]")
    stale.wait_for_selector("#conflict")
    assert "<td>price</td>" in stale.inner_html("#conflict-changes")
    assert [c.inner_text() for c in stale.locator("#conflict-changes td").all()] == ["price", "100", "89.90", "75"]
    assert stale.input_value("#id_price") == "89.90"  # the fresh form, ready to try again
    ARTIFACTS.mkdir(exist_ok=True)
    stale.screenshot(path=str(ARTIFACTS / "edit-conflict.png"), full_page=True)

    stale.fill("#id_price", "75")  # the same change, on the fresh form
    stale.click("#edit-form button[type=submit]")
    stale.wait_for_url("**/products/12345/")

    page.goto(live_server.url + "/products/12345/")
    page.click("#latest-changes a:text('Whole history')")
    page.wait_for_url("**/history/product/12345/")
    rows = [r.inner_text().replace("\n", " ") for r in page.locator("#history tr.change-row").all()]
    assert len(rows) == 2 and all("editor" in r for r in rows)
    assert "Price: 89.90 → 75" in rows[0] and "Price: 100 → 89.90" in rows[1]  # newest first
    page.screenshot(path=str(ARTIFACTS / "edit-history.png"), full_page=True)
    assert not [e for e in page.console_errors if "Content Security Policy" in e]
