"""Password guessing at the login page is throttled per username and client address (django-axes), with a
page that says when to try again, and the lockout expires."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.db.models import F
from django.test import Client

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
RIGHT = {"username": "staff", "password": "pw-staff-123"}
WRONG = {"username": "staff", "password": "not-the-password"}


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def _let_time_pass(delta: timedelta) -> None:
    """The recorded failures become ``delta`` older, as if that much time had passed."""
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - delta)


def test_fifty_wrong_passwords_lock_the_user_out_until_the_cool_off_passes(
    client: Client, staff_user: User, settings: object
) -> None:
    limit = settings.AXES_FAILURE_LIMIT  # type: ignore[attr-defined]
    assert limit <= 10
    statuses = [client.post(LOGIN, WRONG).status_code for _ in range(50)]
    assert statuses[: limit - 1] == [200] * (limit - 1)  # the form again, with its error
    assert set(statuses[limit - 1 :]) == {429}

    locked = client.post(LOGIN, RIGHT)
    assert locked.status_code == 429
    assert not _logged_in(client)
    text = locked.content.decode()
    assert "Too many failed logins" in text and "Try again in 15 minutes" in text
    assert locked["Retry-After"] == str(15 * 60)

    _let_time_pass(timedelta(minutes=14))
    assert client.post(LOGIN, RIGHT).status_code == 429  # not yet (and this attempt starts the wait again)
    _let_time_pass(settings.AXES_COOLOFF_TIME + timedelta(seconds=1))  # type: ignore[attr-defined]
    response = client.post(LOGIN, RIGHT)
    assert response.status_code == 302 and response["Location"] == "/"
    assert _logged_in(client)


def test_the_lockout_is_per_username_and_address(client: Client, staff_user: User) -> None:
    User.objects.create_user("other", password="pw-other-123", is_staff=True)
    for _ in range(10):
        client.post(LOGIN, WRONG)
    assert client.post(LOGIN, RIGHT).status_code == 429
    # the same address may still log in another user, and another address the same user
    assert client.post(LOGIN, {"username": "other", "password": "pw-other-123"}).status_code == 302
    elsewhere = Client(REMOTE_ADDR="10.0.0.7")
    assert elsewhere.post(LOGIN, RIGHT).status_code == 302


def test_a_success_before_the_limit_clears_the_failures(client: Client, staff_user: User) -> None:
    for _ in range(9):
        assert client.post(LOGIN, WRONG).status_code == 200
    assert client.post(LOGIN, RIGHT).status_code == 302
    client.logout()
    for _ in range(9):
        assert client.post(LOGIN, WRONG).status_code == 200
    assert client.post(LOGIN, RIGHT).status_code == 302


def test_forwarded_for_is_ignored_unless_behind_a_proxy(client: Client, staff_user: User, settings: object) -> None:
    for n in range(10):
        client.post(LOGIN, WRONG, headers={"X-Forwarded-For": f"203.0.113.{n}"})
    assert client.post(LOGIN, RIGHT, headers={"X-Forwarded-For": "198.51.100.1"}).status_code == 429


def test_behind_a_proxy_the_address_it_appended_counts(client: Client, staff_user: User, settings: object) -> None:
    settings.BEHIND_PROXY = True  # type: ignore[attr-defined]
    for n in range(10):  # a client forging the first entry does not escape
        client.post(LOGIN, WRONG, headers={"X-Forwarded-For": f"203.0.113.{n}, 192.0.2.10"})
    assert client.post(LOGIN, RIGHT, headers={"X-Forwarded-For": "192.0.2.10"}).status_code == 429
    assert client.post(LOGIN, RIGHT, headers={"X-Forwarded-For": "192.0.2.11"}).status_code == 302
