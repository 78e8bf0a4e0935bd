"""The poller is killed with SIGKILL while writes continue; a restart resumes from its checkpoints and the
view ends up equal to what the shop table implies. ``--replay`` afterwards changes nothing."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from adminview import rebuild
from adminview.models import ViewItem
from adminview.rebuild import parallel_scan
from shop import orders
from shop.errors import ShopError
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def _writer(stop: threading.Event, count: list[int]) -> None:
    n = 0
    while not stop.is_set():
        oid = f"k{n}"
        try:
            orders.order_place(
                customer_id=f"100{1 + n % 3}", lines=[OrderLine(f"200{1 + n % 3}", 1 + n % 2)], order_id=oid
            )
            if n % 3 == 1:
                orders.order_cancel(order_id=f"k{n - 1}")
            elif n % 3 == 2:
                orders.order_ship(order_id=f"k{n - 1}")
        except ShopError:
            pass
        n += 1
        count[0] = n


def _poller(log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "manage.py", "sync_adminview", "--follow", "--batch-size", "7", "--report-every", "0.5"],
        cwd=REPO,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


def _wait_for_progress(log: Path, since: int, timeout: float = 90.0) -> None:
    """Wait until the poller has reported progress after byte ``since`` of its log (start-up can be slow on a
    loaded machine; a fixed sleep would kill it before it read anything)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "records" in log.read_bytes()[since:].decode(errors="replace"):
            return
        time.sleep(0.2)
    raise AssertionError(f"no progress from the poller in {timeout:.0f}s:\n{log.read_text()}")


def test_sigkill_mid_stream_then_restart(shop_table: str, admin_view_table: str, tmp_path: Path) -> None:
    factories.shop_with(customers=3, products=3, stock_each=100_000)
    log = tmp_path / "poller.log"
    stop, count = threading.Event(), [0]
    writer = threading.Thread(target=_writer, args=(stop, count))
    writer.start()
    try:
        first = _poller(log)
        _wait_for_progress(log, 0)
        time.sleep(2)
        first.kill()  # SIGKILL: no chance to finish the batch or save anything
        assert first.wait(timeout=10) == -signal.SIGKILL
        restarted_at = log.stat().st_size
        second = _poller(log)
        _wait_for_progress(log, restarted_at)
        time.sleep(2)
    finally:
        stop.set()
        writer.join()
    second.send_signal(signal.SIGTERM)  # clean stop: finishes the batch in hand
    assert second.wait(timeout=60) == 0, log.read_text()
    output = log.read_text()
    assert "records" in output and "/s)" in output and "lag" in output
    assert count[0] > 10

    sync_now()  # whatever arrived after the clean stop
    found = rebuild.verify()
    assert found.clean, found.summary()

    before = sorted(map(repr, parallel_scan(ViewItem)))
    replay = subprocess.run(
        [sys.executable, "manage.py", "sync_adminview", "--once", "--replay"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert replay.returncode == 0, replay.stderr
    assert sorted(map(repr, parallel_scan(ViewItem))) == before
    verify = subprocess.run(
        [sys.executable, "manage.py", "verify_adminview"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert verify.returncode == 0 and "OK" in verify.stdout, verify.stdout + verify.stderr
