"""The staff user is loaded on every request, with its memberships of every group the permissions ask about in the
same query: a change made anywhere (another instance, a plain UPDATE without Django's signals) applies to the very next
request."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from dashboard.permissions import RULES

pytestmark = pytest.mark.django_db
PAGE = "/patterns/"  # a page without DynamoDB calls, for operators


def test_the_user_and_its_group_memberships_cost_one_query(operator: Client, django_assert_num_queries: Any) -> None:
    assert operator.get(PAGE).status_code == 200
    with django_assert_num_queries(1):
        response = operator.get(PAGE)
    assert response.wsgi_request.user.in_fulfilment_group is False  # type: ignore[union-attr]
    assert response.wsgi_request.user.in_operators_group is True  # type: ignore[union-attr]


def test_every_rule_is_answered_from_what_was_loaded_with_the_user(
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
    assert staff.get(PAGE).wsgi_request.user.in_fulfilment_group is True  # type: ignore[union-attr]
    User.groups.through.objects.filter(user=staff_user).delete()
    assert staff.get(PAGE).wsgi_request.user.in_fulfilment_group is False  # type: ignore[union-attr]


def test_the_operators_group_opens_the_operations_pages_from_the_next_request(staff: Client, staff_user: User) -> None:
    assert staff.get(PAGE).status_code == 403
    operators = Group.objects.get_or_create(name="operators")[0]
    User.groups.through.objects.create(user=staff_user, group=operators)
    assert staff.get(PAGE).status_code == 200
    User.groups.through.objects.filter(user=staff_user).delete()
    assert staff.get(PAGE).status_code == 403
