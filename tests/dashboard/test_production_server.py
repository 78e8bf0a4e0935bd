"""The production setup end to end: ``migrate``, ``collectstatic --noinput``, then two gunicorn instances (two
workers each, DEBUG off) on one shared staff database serve one logged-in staff member interchangeably,
their CSS and JS included, and share the login throttle. PostgreSQL when its server binaries are installed
(the suite starts a throwaway cluster), and the embedded SQLite file."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from bench import postgres
from dynamo import local
from shop.management.commands import demo

pytestmark = [pytest.mark.ddb_local, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "pw-prod-staff-123"


@pytest.fixture(params=["postgresql", "sqlite"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared.sqlite3'}"
        return
    reason = postgres.available()
    if reason:
        pytest.skip(reason)
    with postgres.throwaway() as cluster:
        yield cluster.create_database("shopadmin")


@pytest.fixture
def production_env(database_url: str, tmp_path: Path, shop_table: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST", "SHOP_ADMIN_"))}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_SECRET_KEY": "production-test-" + "k" * 40,
            "DJANGO_DEBUG": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": database_url,
            "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
            "SHOP_ADMIN_DATA_DIR": str(tmp_path / "data"),  # never created: nothing needs it here
            "SHOP_TABLE_NAME": shop_table,
            "DJANGO_SUPERUSER_USERNAME": "boss",
            "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
            "DJANGO_SUPERUSER_EMAIL": "boss@example.com",
            "PYTHONPATH": str(ROOT),
        }
    )
    for command in (["migrate"], ["collectstatic", "--noinput"], ["createsuperuser", "--noinput"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *command, "-v", "0"], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    return env


def _gunicorn(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = local.free_port()
    process = subprocess.Popen(
        demo.server_command(port, "tests.dashboard.wsgi_with_pid:application"),
        cwd=ROOT,
        env=demo.server_environment(env),  # the demo's DynamoDB patience: this machine runs the engine too
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120  # it listens within seconds, busy machine or not: only a hang waits this
    while not local.port_open(port):
        assert process.poll() is None, "gunicorn exited at start"
        assert time.monotonic() < deadline, "gunicorn did not listen in 120 s"
        time.sleep(0.1)
    return process, f"http://127.0.0.1:{port}"


@pytest.fixture
def two_instances(production_env: dict[str, str]) -> Iterator[tuple[str, str]]:
    servers = [_gunicorn(production_env) for _ in range(2)]
    try:
        yield servers[0][1], servers[1][1]
    finally:
        for process, _ in servers:
            process.terminate()
        for process, _ in servers:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def _log_in(session: requests.Session, base: str, password: str) -> requests.Response:
    page = session.get(f"{base}/accounts/login/", timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, page.text[:500]
    return session.post(
        f"{base}/accounts/login/",
        data={"username": "boss", "password": password, "csrfmiddlewaretoken": token.group(1)},
        headers={"Referer": f"{base}/accounts/login/"},
        allow_redirects=False,
        timeout=30,
    )


def test_two_instances_on_one_shared_database(two_instances: tuple[str, str]) -> None:
    """One production setup per database, checked in turn: idle connections hold no worker, the shared session
    and the static files, the long URL and the favicon, and last the lockout (it locks the staff member out for
    the rest)."""
    first, second = two_instances
    answer_beside_idle_connections(first)
    share_the_logged_in_staff_member_and_serve_static(first, second)
    let_a_long_url_through_to_our_414_page_and_serve_the_favicon(first)
    hold_a_lockout_on_one_instance_on_the_other(first, second)


def answer_beside_idle_connections(base: str) -> None:
    """More idle connections than the server has workers (a browser's preconnections, opened and never used)
    hold none of them: a page still answers. With one synchronous worker per process each idle connection held
    its worker until gunicorn's 30 s timeout; 5 s is a wide margin over an answer, not a speed bound."""
    host, port = base.removeprefix("http://").split(":")
    idle = [socket.create_connection((host, int(port)), timeout=5) for _ in range(4)]  # queued ahead of the page
    try:
        page = requests.get(f"{base}/accounts/login/", timeout=5)
        assert page.status_code == 200 and "csrfmiddlewaretoken" in page.text
    finally:
        for connection in idle:
            connection.close()


def share_the_logged_in_staff_member_and_serve_static(first: str, second: str) -> None:
    staff = requests.Session()
    assert _log_in(staff, first, PASSWORD).status_code == 302
    served_by: set[tuple[str, str]] = set()
    for attempt in range(40):
        base = (first, second)[attempt % 2]
        # a page that needs the login and reads nothing but the view's freshness (one Query of the sync table):
        # what is checked is the session both instances share
        # a new connection each time (a kept-alive one stays with its worker), so more than one worker answers
        response = staff.get(f"{base}/search/", allow_redirects=False, timeout=30, headers={"Connection": "close"})
        assert response.status_code == 200, (base, response.status_code, response.headers.get("Location"))
        assert "boss" in response.text and "Log out" in response.text
        served_by.add((base, response.headers["X-Worker-Pid"]))
        if len(served_by) == 4:
            break
    assert {base for base, _ in served_by} == {first, second}
    assert len(served_by) >= 3, served_by  # both instances, and more than one worker of an instance

    anonymous = requests.get(f"{second}/", allow_redirects=False, timeout=30)
    assert anonymous.status_code == 302 and anonymous.headers["Location"].startswith("/accounts/login/")

    for path, kind in (("dashboard/dashboard.css", "text/css"), ("django_htmx/htmx-2.min.js", "javascript")):
        asset = requests.get(f"{second}/static/{path}", timeout=30)
        assert asset.status_code == 200 and kind in asset.headers["Content-Type"], path
        assert len(asset.content) > 100

    # logging out on one instance ends the session on the other
    token = str(staff.cookies["csrftoken"])
    out = staff.post(
        f"{second}/accounts/logout/",
        headers={"X-CSRFToken": token, "Referer": f"{second}/"},
        allow_redirects=False,
        timeout=30,
    )
    assert out.status_code == 302
    assert staff.get(f"{first}/", allow_redirects=False, timeout=30).status_code == 302


def hold_a_lockout_on_one_instance_on_the_other(first: str, second: str) -> None:
    guesser = requests.Session()
    statuses = [_log_in(guesser, (first, second)[n % 2], "wrong-password").status_code for n in range(12)]
    assert statuses[:9] == [200] * 9 and set(statuses[9:]) == {429}
    refused = _log_in(requests.Session(), second, PASSWORD)
    assert refused.status_code == 429 and "Try again in" in refused.text


def test_migrate_on_a_fresh_checkout_with_a_secret_key_creates_the_data_dir(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST", "SHOP_ADMIN_", "DATABASE_"))}
    data = tmp_path / "fresh" / ".data"
    env |= {"DJANGO_SECRET_KEY": "fresh-" + "k" * 40, "SHOP_ADMIN_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert (data / "db.sqlite3").exists()
    assert not (data / "django-secret-key").exists()


def let_a_long_url_through_to_our_414_page_and_serve_the_favicon(base: str) -> None:
    # longer than Django's limit and than gunicorn's default request line (4,094), within gunicorn.conf.py's
    long = requests.get(f"{base}/patterns/?q={'x' * 6000}", allow_redirects=False, timeout=30)
    assert long.status_code == 414 and "<h1>414 Address too long</h1>" in long.text
    assert long.headers["Content-Security-Policy"]
    icon = requests.get(f"{base}/favicon.ico", timeout=30)
    assert icon.status_code == 200 and icon.content[:4] == b"\x00\x00\x01\x00"
