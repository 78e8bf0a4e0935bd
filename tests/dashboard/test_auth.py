"""The staff user is loaded on every request (Django's ModelBackend), and its group names once in the request when a
permission is asked: a change made anywhere (another instance, a plain UPDATE without Django's signals) applies to the
very next request."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from dashboard.permissions import RULES, can_fulfil

pytestmark = pytest.mark.django_db
PAGE = "/patterns/"  # a page without DynamoDB calls, for operators


def test_the_user_and_its_group_names_cost_two_plain_queries(operator: Client, django_assert_num_queries: Any) -> None:
    assert operator.get(PAGE).status_code == 200
    with django_assert_num_queries(2):
        response = operator.get(PAGE)
    assert not can_fulfil(response.wsgi_request.user)


def test_every_rule_is_answered_from_the_group_names_the_request_read(
    operator: Client, django_assert_num_queries: Any
) -> None:
    user = operator.get(PAGE).wsgi_request.user
    with django_assert_num_queries(0):
        answers = {name: rule(user) for name, rule in RULES.items()}
    assert answers == {name: name == "operate" for name in RULES}


def test_a_deactivated_account_is_logged_out_at_once(operator: Client, operator_user: User) -> None:
    assert operator.get(PAGE).status_code == 200
    User.objects.filter(pk=operator_user.pk).update(is_active=False)  # as another instance would: no signal here
    assert operator.get(PAGE).status_code == 302  # back to the login page


def test_a_password_changed_elsewhere_ends_the_session_at_once(operator: Client, operator_user: User) -> None:
    assert operator.get(PAGE).status_code == 200
    User.objects.filter(pk=operator_user.pk).update(password="changed-by-another-instance")
    assert operator.get(PAGE).status_code == 302


def test_group_membership_applies_to_the_next_request(staff: Client, staff_user: User) -> None:
    group = Group.objects.get_or_create(name="fulfilment")[0]
    User.groups.through.objects.create(user=staff_user, group=group)  # a plain insert: no m2m_changed signal
    assert can_fulfil(staff.get(PAGE).wsgi_request.user)
    User.groups.through.objects.filter(user=staff_user).delete()
    assert not can_fulfil(staff.get(PAGE).wsgi_request.user)


def test_the_operators_group_opens_the_operations_pages_from_the_next_request(staff: Client, staff_user: User) -> None:
    assert staff.get(PAGE).status_code == 403
    operators = Group.objects.get_or_create(name="operators")[0]
    User.groups.through.objects.create(user=staff_user, group=operators)
    assert staff.get(PAGE).status_code == 200
    User.groups.through.objects.filter(user=staff_user).delete()
    assert staff.get(PAGE).status_code == 403
