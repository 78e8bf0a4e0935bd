"""Cost headers on every response; security headers; deploy check."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from tests import factories
from tests.dashboard.conftest import FakeSelectors, order_rows

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[2]
SERVER_TIMING = re.compile(r'dynamodb;dur=\d+(\.\d+)?;desc="\d+ calls?"')


def assert_cost_headers(response, calls: int | None = None) -> None:  # type: ignore[no-untyped-def]
    assert response["X-DynamoDB-Calls"].isdigit()
    float(response["X-DynamoDB-RCU"])
    assert SERVER_TIMING.search(response["Server-Timing"]), response["Server-Timing"]
    assert re.search(r"app;dur=\d+\.\d", response["Server-Timing"])
    if calls is not None:
        assert int(response["X-DynamoDB-Calls"]) == calls


def test_headers_on_pages_without_dynamodb_calls(
    client: Client, staff: Client, operator: Client, shop_table: str, admin_view_table: str, checkpoint_table: str
) -> None:
    # with every table in place the numbers' reads all run (a failed read cancels the shard reads not yet sent)
    assert_cost_headers(client.get("/accounts/login/"), calls=0)
    assert_cost_headers(client.get("/"), calls=0)  # redirect to login
    home = operator.get("/")
    assert_cost_headers(home)  # DescribeTable for the approximate item count, and the numbers' reads
    assert shop_table in home.content.decode()
    # the item count is cached for a few minutes: one call fewer
    assert_cost_headers(operator.get("/"), calls=int(home["X-DynamoDB-Calls"]) - 1)
    staff_home = staff.get("/")  # the tables' sizes are for operators
    assert_cost_headers(staff_home, calls=int(home["X-DynamoDB-Calls"]) - 1)
    assert shop_table not in staff_home.content.decode()
    assert_cost_headers(staff.get("/no/such/page/"), calls=0)
    assert_cost_headers(staff.get("/orders/o1/ship/"), calls=0)  # 405


def test_headers_and_footer_on_a_page_that_reads(staff: Client, operator: Client, shop_table: str) -> None:
    factories.customer("1001", name="Ada")
    response = operator.get("/customers/1001/invoices/?from=2024-01-01&to=2024-12-31")
    assert response.status_code == 200
    assert_cost_headers(response, calls=2)  # GetItem customer + one Query on GSI2
    assert float(response["X-DynamoDB-RCU"]) > 0
    html = response.content.decode()
    assert '<details class="cost" id="dynamodb-cost">' in html
    assert "GetItem" in html and "Query" in html and "GSI2" in html  # each call, for operators
    footer = staff.get("/customers/1001/invoices/?from=2024-01-01&to=2024-12-31").content.decode()
    assert 'id="dynamodb-cost"' not in footer  # operators' business: other staff have the headers only
    assert "GetItem" not in footer and "GSI2" not in footer


def test_headers_on_error_responses(staff: Client, shop_table: str) -> None:
    not_found = staff.get("/customers/nobody/invoices/")
    assert not_found.status_code == 404
    assert_cost_headers(not_found, calls=1)
    bad = staff.get("/customers/1001/invoices/?from=yesterday")
    assert bad.status_code == 400
    assert_cost_headers(bad, calls=0)


def test_a_page_that_answers_htmx_with_a_part_of_it_varies_on_hx_request(staff: Client, fake_av: FakeSelectors) -> None:
    # given the pending list, whose "load more" answers htmx with its rows alone, and an error page (htmx: its message)
    fake_av.pending = order_rows(3)
    for url in ("/orders/pending/", "/orders/pending/?sort=sideways"):
        whole, part = staff.get(url), staff.get(url, headers={"HX-Request": "true"})
        # then both answers say they differ by HX-Request, so a browser's cache never shows the part after Back
        assert len(part.content) < len(whole.content)
        assert "HX-Request" in whole["Vary"] and "HX-Request" in part["Vary"], (url, whole["Vary"])


def test_security_headers(staff: Client, shop_table: str) -> None:
    response = staff.get("/")
    csp = response["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


def test_no_inline_script_or_style(staff: Client, shop_table: str) -> None:
    html = staff.get("/").content.decode()
    assert re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html) is None
    assert "<style" not in html and " style=" not in html
    assert re.search(r"\son[a-z]+=", html) is None  # no inline event handlers


def test_check_deploy_passes_with_production_env(tmp_path: Path) -> None:
    env = {
        # not the browser tests' allowance for Playwright's event loop, which a deployment must not have
        **{name: value for name, value in os.environ.items() if name != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "admin.example.com",
        "DJANGO_HTTPS": "1",
        "DJANGO_DEBUG": "0",
        "SHOP_ADMIN_DATA_DIR": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize("logged_in", [False, True])
def test_an_overlong_url_is_our_414_page_and_one_at_the_limit_is_served(staff: Client, logged_in: bool) -> None:
    client = staff if logged_in else Client()
    long_query = "/?q=" + "x" * 5000
    response = client.get(long_query)
    assert response.status_code == 414
    html = response.content.decode()
    assert "<h1>414 Address too long</h1>" in html and "at most 4096 characters" in html
    assert "Traceback" not in html and response["Content-Security-Policy"]
    assert_cost_headers(response, calls=0)
    at_limit = "/accounts/login/?q=" + "x" * (4096 - len("/accounts/login/?q="))  # a page that reads no table
    assert client.get(at_limit).status_code == 200


def test_the_favicon_is_served_to_anyone_and_linked_from_every_page(staff: Client) -> None:
    icon = Client().get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] in ("image/x-icon", "image/vnd.microsoft.icon")
    assert icon.getvalue()[:4] == b"\x00\x00\x01\x00"  # an ICO file
    html = staff.get("/patterns/").content.decode()
    link = re.search(r'<link rel="icon" href="([^"]+)"', html)
    assert link is not None and Client().get(link.group(1)).status_code == 200
