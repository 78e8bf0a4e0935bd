"""Sessions are Django's signed cookies (``SESSION_ENGINE``): a staff member stays logged in across requests,
logging out ends the session, and a cookie that was tampered with is refused."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db


def logged_in_client() -> Client:
    User.objects.create_user("ann", "ann@example.com", "pw-ann-12345", is_staff=True)
    client = Client()
    assert client.post("/accounts/login/", {"username": "ann", "password": "pw-ann-12345"}).status_code == 302
    return client


def test_a_logged_in_staff_member_stays_logged_in_and_logs_out() -> None:
    client = logged_in_client()
    for _ in range(2):
        assert client.get("/patterns/").wsgi_request.user.username == "ann"
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/patterns/").status_code == 302  # to the login page


def test_a_tampered_session_cookie_is_refused() -> None:
    client = logged_in_client()
    cookie = client.cookies["sessionid"].value
    client.cookies["sessionid"] = cookie[:-1] + ("A" if cookie[-1] != "A" else "B")
    response = client.get("/patterns/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
