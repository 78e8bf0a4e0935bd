"""Who may see and change what: staff-only site, login redirects (HX-Redirect for htmx), fulfilment group."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.dashboard.conftest import csrf_of

pytestmark = pytest.mark.django_db

PAGES = [
    "/",
    "/orders/pending/",
    "/orders/o1/",
    "/orders/o1/consistency/",
    "/customers/1001/",
    "/customers/1001/invoices/",
    "/customers/1001/?format=json",
    "/products/2001/buyers/",
    "/orders/by-transaction/?transaction_id=t1",
    "/go/?kind=order&id=1",
    "/go/?id=Ada",
    "/search/?q=ada",
    "/search/orders/1001/",
    "/patterns/",
    "/patterns/getCustomerByCustomerId/?customer_id=1",
    "/products/2001/",
    "/warehouses/301/",
]


@pytest.mark.parametrize("path", PAGES)
def test_anonymous_is_sent_to_login(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize("path", PAGES)
def test_anonymous_htmx_request_gets_hx_redirect(client: Client, path: str) -> None:
    response = client.get(path, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert response["HX-Redirect"].startswith("/accounts/login/?next=")


def test_hx_redirect_returns_to_the_page_not_the_fragment(client: Client) -> None:
    response = client.get(
        "/orders/pending/?cursor=abc",
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/customers/1001/?limit=5"},
    )
    assert response["HX-Redirect"] == "/accounts/login/?next=/customers/1001/%3Flimit%3D5"


def test_non_staff_user_is_refused_everywhere_but_login(client: Client) -> None:
    user = User.objects.create_user("shopper", password="pw-shopper-123")
    client.force_login(user)
    for path in PAGES:
        response = client.get(path)
        assert response.status_code == 403, path
        assert b"staff accounts only" in response.content
    assert client.get("/accounts/login/").status_code == 200


def test_login_form_logs_staff_in(client: Client, staff_user: User, shop_table: str) -> None:
    page = client.get("/accounts/login/")
    assert page.status_code == 200 and b"Staff log in" in page.content
    response = client.post("/accounts/login/", {"username": "staff", "password": "pw-staff-123"})
    assert response.status_code == 302 and response["Location"] == "/"
    home = client.get("/")
    assert home.status_code == 200
    assert b"Pending orders" in home.content


def test_home_serves_htmx_from_our_static_and_sets_csrf_header(staff: Client, shop_table: str) -> None:
    html = staff.get("/").content.decode()
    assert '<script src="/static/django_htmx/htmx-2.min.js"' in html
    assert 'hx-headers=\'{"x-csrftoken": "' in html
    assert "http://" not in html and "https://" not in html  # no CDN


def test_ship_and_cancel_are_post_only(staff: Client) -> None:
    assert staff.get("/orders/o1/ship/").status_code == 405
    assert staff.get("/orders/o1/cancel/").status_code == 405


def test_post_without_fulfilment_permission_is_403(staff: Client) -> None:
    for action in ("ship", "cancel"):
        response = staff.post(f"/orders/o1/{action}/", {"expected_version": "1"})
        assert response.status_code == 403
        assert b"fulfilment" in response.content


def test_post_without_csrf_token_is_403(packer: Client) -> None:
    response = packer.post("/orders/o1/ship/", {"expected_version": "1"})
    assert response.status_code == 403
    assert b"CSRF" in response.content


def test_csrf_token_in_header_is_accepted(packer: Client, shop_table: str) -> None:
    token = csrf_of(packer)
    response = packer.post(
        "/orders/o1/ship/", {"expected_version": "1"}, headers={"X-CSRFToken": token, "HX-Request": "true"}
    )
    assert response.status_code == 404  # past CSRF and permission: the order does not exist


def test_unknown_url_is_a_plain_404_page(staff: Client) -> None:
    response = staff.get("/no/such/page/")
    assert response.status_code == 404
    assert b"Traceback" not in response.content


OPERATIONS = [
    "/patterns/",
    "/patterns/getCustomerByCustomerId/?customer_id=1",
    "/sync/",
    "/orders/o1/consistency/",
    "/orders/o1/consistency/?format=json",
]
OPERATIONS_POSTS = ["/sync/replay/", "/orders/o1/consistency/repair/"]


def test_operations_pages_are_for_operators_only(staff: Client, packer: Client) -> None:
    for client in (staff, packer):  # no group, and a work group that is not operators
        for path in OPERATIONS:
            response = client.get(path)
            assert response.status_code == 403, path
            assert b"for operators" in response.content and b"Traceback" not in response.content
        for path in OPERATIONS_POSTS:
            response = client.post(path, {"all": "1"}, headers={"X-CSRFToken": csrf_of(client)})
            assert response.status_code == 403, path
    fragment = staff.get("/sync/", headers={"HX-Request": "true"})
    assert fragment.status_code == 403 and b"<html" not in fragment.content and b"for operators" in fragment.content


def test_operators_get_past_the_check_and_only_superusers_repair(
    operator: Client, shop_table: str, admin_view_table: str
) -> None:
    assert operator.get("/patterns/").status_code == 200
    assert operator.get("/orders/nope/consistency/").status_code == 404  # the page's own answer
    repair = operator.post("/orders/nope/consistency/repair/")
    assert repair.status_code == 403 and b"superusers" in repair.content.lower()
