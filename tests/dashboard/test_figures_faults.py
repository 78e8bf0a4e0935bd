"""The numbers equal a count from scratch after the faults a real sync meets: a following sync killed with SIGKILL
(twice) while staff work, a full ``--replay``, and a rebuild run during live staff actions (DynamoDB Local, real
stream, the real poller in a child process)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.test import Client

from adminview.repair import rebuild
from shop import orders
from shop.errors import ShopError
from shop.orders import OrderLine
from tests import factories
from tests.adminview.figures_oracle import assert_figures_match, expected
from tests.adminview.repair.test_rebuild_live import Following
from tests.adminview.sync.test_poller_kill import BATCH, REPO, _poller, _records_reported, _wait_until
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows

pytestmark = [pytest.mark.slow, pytest.mark.django_db]
DAY0 = datetime(2026, 6, 1, 10, tzinfo=UTC)


def _staff(stop: threading.Event, count: list[int], prefix: str) -> None:
    """Places orders over a few days, and ships, delivers or cancels earlier ones, until told to stop."""
    n = 0
    while not stop.is_set():
        try:
            orders.order_place(
                customer_id=f"100{1 + n % 3}",
                lines=[OrderLine(f"200{1 + n % 4}", 1 + n % 3), OrderLine(f"200{1 + (n + 2) % 4}", 1)],
                order_id=f"{prefix}{n}",
                placed_at=DAY0 + timedelta(days=n % 5, minutes=n),
            )
            if n % 4 == 1:
                orders.order_cancel(order_id=f"{prefix}{n - 1}")
            elif n % 4 == 2:
                orders.order_ship(order_id=f"{prefix}{n - 1}")
            elif n % 4 == 3:
                orders.order_ship(order_id=f"{prefix}{n - 3}")
                orders.order_deliver(order_id=f"{prefix}{n - 3}")
        except ShopError:
            pass  # e.g. shipping an order cancelled meanwhile: refused, nothing written
        n += 1
        count[0] = n


def _status_page(client: Client) -> dict[str, int]:
    header, *rows = csv_rows(client.get("/stats/status/?format=csv"))
    assert header == ["status", "orders"]
    return {status: int(n) for status, n in rows}


def test_figures_survive_sigkills_a_replay_and_a_live_rebuild(
    shop_table: str, admin_view_table: str, tmp_path: Path, staff: Client
) -> None:
    factories.shop_with(customers=3, products=4, stock_each=100_000, categories=["Books", "Garden", None])
    log = tmp_path / "poller.log"
    stop, count = threading.Event(), [0]
    writer = threading.Thread(target=_staff, args=(stop, count, "s"))
    writer.start()
    try:
        poller = _poller(log)
        for _kill in range(2):
            since = log.stat().st_size if log.exists() else 0

            def applying(start: int = since) -> bool:
                return _records_reported(log, start) >= 3 * BATCH

            _wait_until(applying, "the poller applying batches", log)
            poller.kill()  # SIGKILL: mid-batch, nothing saved
            assert poller.wait(timeout=10) == -signal.SIGKILL
            poller = _poller(log)
        since = log.stat().st_size
        _wait_until(lambda: _records_reported(log, since) >= 3 * BATCH, "the restarted poller applying batches", log)
    finally:
        stop.set()
        writer.join()
    poller.send_signal(signal.SIGTERM)
    assert poller.wait(timeout=60) == 0, log.read_text()
    sync_now()
    assert count[0] > 12
    assert_figures_match()
    assert _status_page(staff) == expected()["status"]

    replay = subprocess.run(
        [sys.executable, "manage.py", "sync_adminview", "--once", "--replay"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert replay.returncode == 0, replay.stderr
    assert_figures_match()

    stop, live = threading.Event(), [0]
    writer = threading.Thread(target=_staff, args=(stop, live, "r"))
    with Following():
        writer.start()
        try:
            rebuild.rebuild(segments=2, page_size=7)
            _wait_until(lambda: live[0] >= 8, "staff working during the rebuild", log)
        finally:
            stop.set()
            writer.join()
    sync_now()
    assert_figures_match()
    assert _status_page(staff) == expected()["status"]
    assert rebuild.verify(settle_s=0).clean
