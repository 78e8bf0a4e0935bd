"""DynamoDB stops answering for 20 s (its process frozen with SIGSTOP: what a network partition or a regional
brown-out looks like to a client) while staff use the dashboard, served by gunicorn as in production (two workers,
four threads) with the stream sync following in its own process.

Every page and action answers 503 within 10 s, with a readable message and no traceback: no worker waits on
DynamoDB for long, so the next round of requests is served too. After SIGCONT, nothing is lost: each action
that answered success is in the shop table, sending again an action whose outcome was unknown is safe (done now,
or 409 had it landed), and the sync, which waited, has caught up by itself (``verify_adminview`` passes).

The module runs on a DynamoDB Local of its own, so freezing it leaves the session's engine alone.
"""

from __future__ import annotations

import os
import re
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests
from django.core.management import call_command

from adminview.repair import rebuild
from dynamo import local
from shop import favourites, orders
from shop.orders import OrderLine
from tests import engines, factories

pytestmark = [pytest.mark.ddb_local, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "pw-freeze-staff-123"
FREEZE_S = 20.0
ANSWER_WITHIN_S = 10.0  # the contract; the dashboard's profile aims at about 5 s
SERVER_THREADS = 8  # gunicorn: 2 workers x 4 threads; a round sends no more requests than it serves at once


@pytest.fixture(scope="module")
def engine() -> Iterator[local.DynamoDBLocal]:
    with local.in_memory(short_lived=True) as engine, engines.pointed_at(engine.endpoint):
        yield engine


@dataclass(frozen=True)
class Request:
    label: str
    method: str
    path: str
    data: dict[str, str | list[str]] = field(default_factory=dict)
    htmx: bool = False
    expect: str = "DynamoDB is not answering"  # what the 503 says


@dataclass(frozen=True)
class Answer:
    request: Request
    status: int
    seconds: float
    text: str
    headers: dict[str, str]


ORDER_PAGE = Request("order", "GET", "/orders/o7/")
# o1 is shipped before the freeze; during it staff deliver o1, ship o2, cancel o3, bulk-ship o5 and o6, mark the
# product of o7 a favourite, and browse.
PAGES = [
    Request("pending", "GET", "/orders/pending/"),
    Request("pending (htmx)", "GET", "/orders/pending/", htmx=True),
    Request("pending csv", "GET", "/orders/pending/?format=csv"),
    ORDER_PAGE,
    Request("status list", "GET", "/orders/?status=SHIPPED"),
    Request("customer", "GET", "/customers/1001/"),
    Request("invoices", "GET", "/customers/1001/invoices/"),
    Request("buyers", "GET", "/products/2001/buyers/"),
    Request("sync", "GET", "/sync/"),
    Request("explorer", "GET", "/patterns/getCustomerByCustomerId/?customer_id=1001"),
    Request(
        "live queue",
        "GET",
        "/orders/new/?status=PENDING&newest=2000-01-01T00:00:00%23o0",
        htmx=True,
        expect='hx-trigger="every 10s"',
    ),
]
ACTIONS = [
    Request("deliver", "POST", "/orders/o1/deliver/", expect="order o1 may or may not have been delivered"),
    Request("ship", "POST", "/orders/o2/ship/", expect="order o2 may or may not have been shipped"),
    Request("cancel", "POST", "/orders/o3/cancel/", htmx=True, expect="order o3 may or may not have been cancelled"),
    Request(
        "bulk ship",
        "POST",
        "/orders/bulk/",
        {"action": "ship", "status": "PENDING", "order": ["o5", "o6"]},
        htmx=True,
        expect="2 unknown: DynamoDB did not answer",
    ),
    Request(
        "favourite",
        "POST",
        "/orders/o7/items/2001/favourite/",
        htmx=True,
        expect="product 2001 may or may not have been marked as a favourite",
    ),
]
EXPECTED_AFTER = {"o1": "DELIVERED", "o2": "SHIPPED", "o3": "CANCELLED", "o5": "SHIPPED", "o6": "SHIPPED"}


def _environment(tmp_path: Path) -> dict[str, str]:
    """This process's DynamoDB endpoint and table names, and a production-like Django on a staff database file."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST", "SHOP_ADMIN_"))}
    return env | {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_SECRET_KEY": "freeze-test-" + "k" * 40,
        "DJANGO_DEBUG": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'staff.sqlite3'}",
        "SHOP_ADMIN_DATA_DIR": str(tmp_path / "data"),
        "DJANGO_SUPERUSER_USERNAME": "boss",
        "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
        "DJANGO_SUPERUSER_EMAIL": "boss@example.com",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "PYTHONPATH": str(ROOT),
    }


def _manage(env: dict[str, str], *command: str) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _wait_until(condition: Callable[[], bool], what: str, timeout: float = 120.0) -> float:
    """Poll ``condition``; returns the seconds it took."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout, f"{what}: not within {timeout:.0f} s"
        time.sleep(0.2)
    return time.monotonic() - started


@pytest.fixture
def seven_orders(engine: local.DynamoDBLocal, shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=2, products=2, stock_each=1_000)
    for n in range(1, 8):
        orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1), OrderLine("2002", 2)], order_id=f"o{n}")


@pytest.fixture
def sync(seven_orders: None, tmp_path: Path) -> Iterator[Path]:
    """``sync_adminview --follow`` in its own process (the sync's patient profile), started before the freeze."""
    log = tmp_path / "sync.log"
    env = _environment(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "manage.py", "sync_adminview", "--follow", "--report-every", "1"],
        cwd=ROOT,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    try:
        yield log
        assert process.poll() is None, f"the sync stopped\n{log.read_text()}"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def dashboard(seven_orders: None, tmp_path: Path) -> Iterator[str]:
    """gunicorn serving ``config.wsgi`` (so the dashboard's DynamoDB profile) as in docs/production.md."""
    env = _environment(tmp_path)
    _manage(env, "migrate", "-v", "0")
    _manage(env, "createsuperuser", "--noinput", "-v", "0")
    port = local.free_port()
    command = ["-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "4"]
    log = tmp_path / "gunicorn.log"
    process = subprocess.Popen(
        [sys.executable, *command], cwd=ROOT, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT
    )
    try:
        _wait_until(lambda: local.port_open(port) or process.poll() is not None, "gunicorn listening")
        assert process.poll() is None, log.read_text()
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def _log_in(base: str) -> requests.Session:
    staff = requests.Session()
    page = staff.get(f"{base}/accounts/login/", timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, page.text[:500]
    answer = staff.post(
        f"{base}/accounts/login/",
        data={"username": "boss", "password": PASSWORD, "csrfmiddlewaretoken": token.group(1)},
        allow_redirects=False,
        timeout=30,
    )
    assert answer.status_code == 302, answer.text[:500]
    return staff


def _send(base: str, staff: requests.Session, request: Request) -> Answer:
    headers = {"X-CSRFToken": str(staff.cookies["csrftoken"])}
    if request.htmx:
        headers["HX-Request"] = "true"
    started = time.monotonic()
    response = requests.request(
        request.method,
        base + request.path,
        data=request.data or None,
        headers=headers,
        cookies=staff.cookies,
        allow_redirects=False,
        timeout=60,
    )
    seconds = time.monotonic() - started
    return Answer(request, response.status_code, seconds, response.text, dict(response.headers))


def _answered(base: str, staff: requests.Session, request: Request, attempts: int = 3) -> Answer:
    """``request`` sent until it is not a 503, at most ``attempts`` times: on a starved CPU a request's 2 s deadline
    can pass before its last call starts, and the page then says DynamoDB is not answering, as it should."""
    answer = _send(base, staff, request)
    for _ in range(attempts - 1):
        if answer.status != 503:
            break
        answer = _send(base, staff, request)
    return answer


def _round(base: str, staff: requests.Session, requests_: list[Request]) -> list[Answer]:
    with ThreadPoolExecutor(max_workers=len(requests_)) as pool:
        return list(pool.map(lambda r: _send(base, staff, r), requests_))


def _frozen(engine: local.DynamoDBLocal, base: str, staff: requests.Session) -> list[Answer]:
    """Freeze DynamoDB Local for FREEZE_S; meanwhile send rounds of pages and actions (each round at most what the
    server serves at once), one after another. Thawed whatever happens."""
    assert engine.process is not None
    everything = PAGES + ACTIONS
    answers: list[Answer] = []
    frozen_at = time.monotonic()
    os.kill(engine.process.pid, signal.SIGSTOP)
    try:
        n = 0
        while time.monotonic() - frozen_at < FREEZE_S - ANSWER_WITHIN_S / 2:
            batch = [everything[(n + i) % len(everything)] for i in range(SERVER_THREADS)]
            n += SERVER_THREADS
            answers += _round(base, staff, batch)
        time.sleep(max(0.0, FREEZE_S - (time.monotonic() - frozen_at)))
    finally:
        os.kill(engine.process.pid, signal.SIGCONT)
    return answers


def _assert_unavailable(answer: Answer) -> None:
    label = f"{answer.request.label}: {answer.status} in {answer.seconds:.1f} s"
    assert answer.status in (503, 504), f"{label}\n{answer.text[:1000]}"
    assert answer.seconds < ANSWER_WITHIN_S, label
    assert "Traceback" not in answer.text and answer.headers.get("Retry-After"), label
    assert answer.request.expect in answer.text.replace("&#x27;", "'"), f"{label}\n{answer.text[:1000]}"
    assert int(answer.headers["X-DynamoDB-Calls"]) >= 1 and "dynamodb;dur=" in answer.headers["Server-Timing"]
    if answer.request.htmx:
        assert "<html" not in answer.text, label


def test_while_dynamodb_is_frozen_pages_answer_503_and_nothing_is_lost(
    engine: local.DynamoDBLocal, dashboard: str, sync: Path
) -> None:
    # given a shop the view has caught up with, a logged-in superuser (who may fulfil), and an order shipped
    _wait_until(lambda: rebuild.verify().clean, "the sync catching up with the seeded shop")
    staff = _log_in(dashboard)
    for page in PAGES:
        answer = _answered(dashboard, staff, page)
        assert answer.status == 200, f"{page.label}: {answer.status}\n{answer.text[:500]}"
    assert _send(dashboard, staff, Request("ship o1", "POST", "/orders/o1/ship/")).status == 302

    # when DynamoDB does not answer for 20 s, every page and action answers 503 within 10 s
    answers = _frozen(engine, dashboard, staff)
    for answer in answers:
        _assert_unavailable(answer)
    assert {a.request.label for a in answers} == {r.label for r in PAGES + ACTIONS}

    # then, once it answers again: sending each action again is safe, and what answered success is in the table
    thawed = time.monotonic()
    recovered = _wait_until(lambda: _send(dashboard, staff, ORDER_PAGE).status == 200, "the order page answering")
    for action in ACTIONS:
        answer = _send(dashboard, staff, action)
        assert answer.status in (200, 302, 409), f"{action.label}: {answer.status}\n{answer.text[:500]}"
    assert {oid: orders.order_collection(oid).order.status for oid in EXPECTED_AFTER} == EXPECTED_AFTER
    for oid, status in EXPECTED_AFTER.items():  # and each order's page shows it
        assert f'data-status="{status}"' in _send(dashboard, staff, Request(oid, "GET", f"/orders/{oid}/")).text
    assert favourites.favourite_get(customer_id="1001", product_id="2001") is not None
    # and the sync, which waited out the freeze, has caught up by itself
    caught_up = _wait_until(lambda: rebuild.verify().clean, "the sync catching up after the freeze")
    call_command("verify_adminview", "--no-progress")

    seconds = [a.seconds for a in answers]
    print(
        f"\nfrozen {FREEZE_S:.0f} s: {len(answers)} answers, all 503; seconds to answer: "
        f"median {statistics.median(seconds):.1f}, max {max(seconds):.1f}; "
        f"first page 200 {recovered:.1f} s after the thaw, view verified {time.monotonic() - thawed:.1f} s after "
        f"(the sync's last wait {caught_up:.1f} s)"
    )
