"""Signed-cookie sessions decoded once per process (``dashboard.sessions``): a kept cookie gives what decoding
it gives, until the cookie expires; a refused cookie is never kept; each load is a fresh dict."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import signing
from django.test import Client

from dashboard import sessions
from dashboard.sessions import SessionStore


@pytest.fixture(autouse=True)
def nothing_kept() -> Iterator[None]:
    sessions.forget_sessions()
    yield
    sessions.forget_sessions()


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each cookie that signing.loads decodes."""
    seen: list[str] = []
    real = signing.loads

    def counting(value: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(value)
        return real(value, *args, **kwargs)

    monkeypatch.setattr(signing, "loads", counting)
    return seen


def signed_cookie(content: dict[str, Any]) -> str:
    store = SessionStore()
    store.update(content)
    store.save()
    assert store.session_key
    return store.session_key


def test_a_cookie_is_decoded_once_then_kept(decodes: list[str]) -> None:
    cookie = signed_cookie({"user": "7", "seen": [1, 2]})
    first = SessionStore(cookie).load()
    second = SessionStore(cookie).load()
    assert first == second == {"user": "7", "seen": [1, 2]}
    assert decodes == [cookie]


def test_each_load_is_a_fresh_dict(decodes: list[str]) -> None:
    cookie = signed_cookie({"seen": [1]})
    store = SessionStore(cookie)
    store["seen"].append(2)
    store["new"] = True
    assert store.modified
    assert SessionStore(cookie).load() == {"seen": [1]}


def test_a_tampered_or_malformed_cookie_is_refused_and_not_kept(decodes: list[str]) -> None:
    cookie = signed_cookie({"user": "7"})
    for bad in (cookie[:-1] + ("A" if cookie[-1] != "A" else "B"), "not-a-cookie", ""):
        for _ in range(2):
            store = SessionStore(bad)
            assert store.load() == {}
            assert store.modified  # a new, empty session: its cookie is set again
    assert sessions._kept == {}


def test_a_kept_cookie_expires_when_the_cookie_does(
    decodes: list[str], monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.SESSION_COOKIE_AGE = 60
    cookie = signed_cookie({"user": "7"})
    assert SessionStore(cookie).load() == {"user": "7"}
    signed_at = signing.b62_decode(cookie.split(":")[1])
    monkeypatch.setattr(sessions, "clock", lambda: signed_at + 60)
    assert SessionStore(cookie).load() == {"user": "7"}  # kept: still within the cookie's age
    assert len(decodes) == 1
    monkeypatch.setattr(sessions, "clock", lambda: signed_at + 61)
    monkeypatch.setattr("django.core.signing.time.time", lambda: signed_at + 61)
    expired = SessionStore(cookie)
    assert expired.load() == {}  # decoded again, and Django refuses it as expired
    assert expired.modified and len(decodes) == 2


def test_no_more_than_keep_cookies_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessions, "KEEP", 3)
    cookies = [signed_cookie({"n": n}) for n in range(4)]
    for cookie in cookies:
        SessionStore(cookie).load()
    assert list(sessions._kept) == [cookies[3]]


@pytest.mark.django_db
def test_a_logged_in_staff_member_stays_logged_in_and_logs_out() -> None:
    """Through the whole stack, with ``dashboard.sessions`` as the session engine."""
    User.objects.create_user("ann", "ann@example.com", "pw-ann-12345", is_staff=True)
    client = Client()
    assert client.post("/accounts/login/", {"username": "ann", "password": "pw-ann-12345"}).status_code == 302
    for _ in range(2):
        assert client.get("/patterns/").wsgi_request.user.username == "ann"
    cookie = client.cookies["sessionid"].value
    assert cookie in sessions._kept
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/patterns/").status_code == 302  # to the login page
