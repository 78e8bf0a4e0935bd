"""Each process keeps a loaded staff user for a few seconds: no staff-database query on most requests, and a
change saved through Django applies at once (its signals clear the kept users); any other change applies
when the kept copy expires."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from dashboard import auth

pytestmark = pytest.mark.django_db
PAGE = "/patterns/"  # a page without DynamoDB calls


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, settings: Any) -> list[float]:
    now = [1000.0]
    settings.STAFF_USER_CACHE_SECONDS = 5
    monkeypatch.setattr(auth, "clock", lambda: now[0])
    auth.forget_users()
    return now


def test_a_kept_user_costs_no_query(staff: Client, clock: list[float], django_assert_num_queries: Any) -> None:
    assert staff.get(PAGE).status_code == 200
    with django_assert_num_queries(0):
        assert staff.get(PAGE).status_code == 200
    clock[0] += 5.0  # expired: loaded again, with its group membership, in one query
    with django_assert_num_queries(1):
        assert staff.get(PAGE).status_code == 200


def test_a_change_saved_through_django_applies_at_once(staff: Client, staff_user: User, clock: list[float]) -> None:
    assert staff.get(PAGE).status_code == 200
    staff_user.is_active = False
    staff_user.save()
    assert staff.get(PAGE).status_code == 302  # logged out: back to the login page


def test_a_password_changed_elsewhere_ends_the_session_when_the_copy_expires(
    staff: Client, staff_user: User, clock: list[float]
) -> None:
    assert staff.get(PAGE).status_code == 200
    User.objects.filter(pk=staff_user.pk).update(password="changed-by-another-instance")  # no signal here
    assert staff.get(PAGE).status_code == 200  # this process still keeps the user it loaded
    clock[0] += 5.0
    assert staff.get(PAGE).status_code == 302


def test_group_membership_changes_clear_kept_users(staff: Client, staff_user: User, clock: list[float]) -> None:
    assert staff.get(PAGE).wsgi_request.user.in_fulfilment_group is False  # type: ignore[union-attr]
    staff_user.groups.add(Group.objects.get_or_create(name="fulfilment")[0])
    assert staff.get(PAGE).wsgi_request.user.in_fulfilment_group is True  # type: ignore[union-attr]


def test_each_request_gets_its_own_copy(staff: Client, clock: list[float]) -> None:
    first, second = (staff.get(PAGE).wsgi_request.user for _ in range(2))
    assert first is not second and first.pk == second.pk


def test_zero_seconds_keeps_nothing(
    staff: Client, settings: Any, clock: list[float], django_assert_num_queries: Any
) -> None:
    settings.STAFF_USER_CACHE_SECONDS = 0
    staff.get(PAGE)
    with django_assert_num_queries(1):
        staff.get(PAGE)
