"""The whole product on moto's server, the second engine the design names: tables, a seed, the sync with no dead
letters, a clean verify, and the staff pages, each command run as an operator would (``manage.py`` in a
process of its own, configured only by the standard AWS variables).

Moto copies every table for each TransactWriteItems (so that it can roll one back), so a transaction costs it
time in proportion to the tables: the seed here is small."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
ORDERS = 20
# A command that takes longer than this is stuck: it is stopped with its threads' stacks printed (the module's own
# time limit would only show this process waiting for it).
COMMAND_TIMEOUT_S = 180

# Run by ``manage.py shell``: follow links from the home page the way a staff member would, and print the status
# of every page seen (as JSON).
PAGES = r"""
import json, re
from django.contrib.auth import get_user_model
from django.test import Client
from django.test.utils import setup_test_environment

setup_test_environment()
boss = get_user_model().objects.create_superuser("moto", "moto@example.com", "pw-moto-123")
client = Client()
client.force_login(boss)
seen = {}

def get(url):
    response = client.get(url)
    seen[url] = response.status_code
    return response.content.decode()

def first(pattern, html):
    found = re.search(pattern, html)
    return found.group(1) if found else None

for url in ("/", "/orders/pending/", "/orders/?status=SHIPPED", "/activity/", "/catalogue/", "/sync/",
            "/stats/status/", "/stats/daily/", "/stats/categories/", "/patterns/"):
    get(url)
order = first(r'href="(/orders/[0-9]+/)"', get("/orders/pending/"))
order_page = get(order)
get(order + "consistency/")
get(first(r'href="(/customers/[0-9]+/)"', order_page))
product = first(r'href="/products/([0-9]+)/', order_page)
get(f"/products/{product}/buyers/")
warehouse = first(r'href="(/warehouses/[0-9]+/)"', get(f"/products/{product}/"))
if warehouse:  # a product with stock somewhere
    get(warehouse)
print(json.dumps(seen))
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def on_moto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A moto server of its own, and the environment a command needs to use it (nothing of this session's)."""
    port = _free_port()
    data = tmp_path_factory.mktemp("moto")
    requests_log = (data / "moto-requests.log").open("w")  # werkzeug logs every request it answers, with its status
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-p", str(port)], stdout=requests_log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 120  # it listens within seconds, busy machine or not: only a hang waits this
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail("moto's server did not start")
                time.sleep(0.2)
        yield {
            "PATH": os.environ["PATH"],
            "HOME": str(data),
            "LANG": "C.UTF-8",
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "DJANGO_SECRET_KEY": "moto-" + "x" * 50,
            "DJANGO_DB_PATH": str(data / "db.sqlite3"),
            # moto puts a table's snapshot back when a transaction fails, undoing other calls' writes meanwhile
            "SHOP_ADMIN_DYNAMODB_THREADS": "1",
        }
    finally:
        server.terminate()
        server.wait(timeout=30)
        requests_log.close()


def manage(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``manage.py`` in a process of its own; one that is stuck fails the test with its stacks and moto's last
    requests."""
    command = [sys.executable, "manage.py", *args]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**env, "PYTHONFAULTHANDLER": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)  # faulthandler prints every thread's stack to stderr
        stdout, stderr = process.communicate(timeout=30)
        requests = (Path(env["HOME"]) / "moto-requests.log").read_text().splitlines()
        pytest.fail(
            f"manage.py {' '.join(args)} still running after {COMMAND_TIMEOUT_S} s\n{stdout}\n{stderr}\n"
            "moto's last requests:\n" + "\n".join(requests[-40:])
        )
    done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if check:
        assert done.returncode == 0, f"manage.py {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_product_runs_on_motos_server(on_moto: dict[str, str]) -> None:
    manage(on_moto, "migrate", "-v0")
    manage(on_moto, "create_tables")
    seeded = manage(
        on_moto,
        "seed_shop",
        "--customers",
        "8",
        "--products",
        "5",
        "--warehouses",
        "2",
        "--orders",
        str(ORDERS),
        "--no-progress",
    )
    assert f"{ORDERS} orders" in seeded.stdout

    synced = manage(on_moto, "sync_adminview", "--once", "--report-every", "5")
    assert "dead-lettered 0" in synced.stdout, synced.stdout
    assert manage(on_moto, "adminview_deadletters", "list").stdout.startswith("0 dead letter")
    verified = manage(on_moto, "verify_adminview", "--no-progress", check=False)
    assert verified.returncode == 0 and "admin view OK" in verified.stdout, verified.stdout + verified.stderr

    shown = json.loads(manage(on_moto, "shell", "-c", PAGES).stdout.strip().splitlines()[-1])
    for kind in ("/orders/", "/customers/", "/products/", "/buyers/", "/consistency/"):
        assert any(kind in url for url in shown), (kind, shown)
    assert {url: status for url, status in shown.items() if status != 200} == {}
