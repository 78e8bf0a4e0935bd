"""/sync/ in headless Chromium: a superuser sees the dead letters and replays them once the cause is fixed."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from adminview.sync import sync_store
from tests.dashboard.test_browser import ARTIFACTS, PASSWORD, page  # noqa: F401 (the page fixture)
from tests.dashboard.test_sync_page import _poison

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.ddb_local]


def test_superuser_replays_dead_letters_from_the_sync_page(
    page: Any,  # noqa: F811
    live_server: Any,
    shop_table: str,
    admin_view_table: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _poison(monkeypatch)
    User.objects.create_superuser("root", "root@example.com", PASSWORD)
    page.goto(live_server.url + "/sync/")
    page.fill("#id_username", "root")
    page.fill("#id_password", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url("**/sync/")
    assert page.locator("tr.dead-letter").count() == 3
    assert page.locator("#heartbeats tbody tr").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "sync-dead-letters.png"), full_page=True)

    monkeypatch.undo()  # the cause is fixed
    page.click("#replay-all")
    page.wait_for_selector(".replay-result")
    assert page.locator(".replay-result").count() == 3
    assert page.locator("tr.dead-letter").count() == 0
    assert page.locator("#dead-letter-count").inner_text() == "0"
    assert list(sync_store.dead_letters()) == []
    assert not [e for e in page.console_errors if "Content Security Policy" in e]
    page.screenshot(path=str(ARTIFACTS / "sync-after-replay.png"), full_page=True)
