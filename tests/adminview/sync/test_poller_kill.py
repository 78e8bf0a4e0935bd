"""The poller is killed with SIGKILL while writes to the shop and returns tables continue; a restart resumes from
its checkpoints and the view ends up equal to what both tables imply, its numbers too. ``--replay`` afterwards
changes nothing."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from adminview.repair import rebuild
from adminview.repair.table_walk import parallel_scan
from adminview.tables import ViewItem
from shop import orders
from shop.errors import ShopError
from shop.orders import OrderLine
from tests import factories
from tests.adminview.figures_oracle import assert_figures_match
from tests.adminview.order_work import OrderDesk, assert_order_work_written
from tests.adminview.returns_traffic import ReturnsDesk, assert_both_streams_written, cancel_with_refund
from tests.adminview_helpers import sync_now

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[3]
BATCH = 7  # records per GetRecords: small, so a kill lands between many checkpoints


def _writer(stop: threading.Event, count: list[int]) -> None:
    """Places orders and cancels (refunding what they paid), ships or delivers earlier ones, while staff create,
    edit, partly ship, pay and refund orders of their own (``OrderDesk``) and the returns desk writes to the
    returns table beside it: the two streams interleave."""
    desk, staff, n = ReturnsDesk("k"), OrderDesk("ks"), 0
    while not stop.is_set():
        oid, customer = f"k{n}", f"100{1 + n % 3}"
        try:
            orders.order_place(customer_id=customer, lines=[OrderLine(f"200{1 + n % 3}", 1 + n % 2)], order_id=oid)
            desk.placed.append((oid, customer))
            if n % 3 == 1:
                cancel_with_refund(f"k{n - 1}")
            elif n % 3 == 2:
                orders.order_ship(order_id=f"k{n - 1}")
                if n % 2:
                    orders.order_deliver(order_id=f"k{n - 1}")
                    desk.delivered.append((f"k{n - 1}", f"200{1 + (n - 1) % 3}"))
        except ShopError:
            pass
        desk.step()
        staff.step()
        n += 1
        count[0] = n


def _poller(log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "sync_adminview",
            "--follow",
            "--batch-size",
            str(BATCH),
            "--report-every",
            "0.5",
        ],
        cwd=REPO,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


def _records_reported(log: Path, since: int) -> int:
    """The most records the poller has reported after byte ``since`` of its log (its "records N (...)" lines)."""
    text = log.read_bytes()[since:].decode(errors="replace")
    return max((int(n) for n in re.findall(r"records (\d+) \(", text)), default=0)


def _wait_until(condition: Callable[[], bool], what: str, log: Path, timeout: float = 120.0) -> None:
    """Poll ``condition`` (start-up and progress can be slow on a loaded machine; a fixed sleep could act before
    anything happened, or waste time after)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f}s\n{log.read_text()}")
        time.sleep(0.2)


def test_sigkill_mid_stream_then_restart(shop_table: str, admin_view_table: str, tmp_path: Path) -> None:
    factories.shop_with(customers=3, products=3, stock_each=100_000)
    log = tmp_path / "poller.log"
    stop, count = threading.Event(), [0]
    writer = threading.Thread(target=_writer, args=(stop, count))
    writer.start()
    try:
        first = _poller(log)
        # mid-stream: some batches applied (and checkpointed) while the writer keeps adding records
        _wait_until(lambda: _records_reported(log, 0) >= 3 * BATCH, "the first poller applying batches", log)
        first.kill()  # SIGKILL: no chance to finish the batch or save anything
        assert first.wait(timeout=10) == -signal.SIGKILL
        restarted_at = log.stat().st_size
        written_at_restart = count[0]
        second = _poller(log)
        # the restarted poller catches up from its checkpoints while writes still arrive
        _wait_until(
            lambda: _records_reported(log, restarted_at) >= 3 * BATCH and count[0] >= written_at_restart + 10,
            "the restarted poller applying batches while orders are written",
            log,
        )
    finally:
        stop.set()
        writer.join()
    second.send_signal(signal.SIGTERM)  # clean stop: finishes the batch in hand
    assert second.wait(timeout=60) == 0, log.read_text()
    output = log.read_text()
    assert re.search(r"records \d+ \(\d+/s\), .*, (lag [\d.]+s|caught up)$", output, re.M), output[-2000:]
    assert count[0] > 10

    sync_now()  # whatever arrived after the clean stop
    assert_both_streams_written()
    assert_order_work_written()
    found = rebuild.verify()
    assert found.clean, found.summary()
    assert_figures_match()

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
    assert_figures_match()
    verify = subprocess.run(
        [sys.executable, "manage.py", "verify_adminview"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert verify.returncode == 0 and "OK" in verify.stdout, verify.stdout + verify.stderr
