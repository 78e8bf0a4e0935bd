"""The demo's pieces that run without starting it: its staff login (every staff group, so it can do all the work)
and the DynamoDB patience it gives its web server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User

from dashboard.permissions import can_edit_catalogue, can_edit_customers, can_fulfil
from shop.management.commands import demo

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_the_printed_login_is_in_every_staff_group_and_may_do_all_the_work(tmp_path: Path) -> None:
    # given a fresh staff database (its migrations made the fulfilment and editing groups) and another group
    Group.objects.create(name="warehouse-leads")
    # when the demo makes its login, twice (a second run of the demo)
    printed = demo.staff_login(tmp_path)
    again = demo.staff_login(tmp_path)
    # then the same login is printed, its password is right, and it is in every group there is (missing ones made)
    username, password = printed.split(" / ")
    assert again == printed and username == demo.DEMO_USER
    user = User.objects.get(username=username)
    assert user.check_password(password) and user.is_staff and user.is_active and not user.is_superuser
    groups = set(user.groups.values_list("name", flat=True))
    assert groups == {
        "fulfilment",
        "catalogue",
        "customer-service",
        "operators",
        "returns",
        "finance",
        "warehouse-leads",
    }
    assert can_fulfil(user) and can_edit_catalogue(user) and can_edit_customers(user)
    assert Group.objects.filter(name="operators").count() == 1


def test_the_demos_web_server_waits_longer_for_dynamodb_unless_the_operator_said_otherwise(tmp_path: Path) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SHOP_ADMIN_", "PYTEST"))}
    base |= {"DJANGO_SECRET_KEY": "demo-" + "k" * 40, "SHOP_ADMIN_DATA_DIR": str(tmp_path)}
    show = (
        "import config.wsgi; from django.conf import settings; p = settings.DASHBOARD_DYNAMODB_PATIENCE; "
        "print(p.connect_timeout_seconds, p.read_timeout_seconds, p.max_retry_attempts + 1, p.deadline_seconds)"
    )

    def served(environ: dict[str, str]) -> str:
        env = demo.server_environment(environ)
        done = subprocess.run([sys.executable, "-c", show], cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip().splitlines()[-1]

    assert served(base) == "3.0 10.0 3 15.0"  # production's defaults are 1 s, 2 s, 2 attempts, 2 s a request
    assert served(base | {"SHOP_ADMIN_DYNAMODB_DEADLINE_SECONDS": "4"}) == "3.0 10.0 3 4.0"
