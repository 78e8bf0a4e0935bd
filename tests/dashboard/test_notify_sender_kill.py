"""A real sender (``manage.py send_notifications --follow`` against DynamoDB Local) killed with SIGKILL after it sent
a message and before it marked it sent: a new sender sends every other one once and, when the dead sender's lease
has run out, the one in flight again; none is lost and no other is sent twice."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from shop import notifications, orders
from shop.models import Notification
from shop.orders import OrderLine
from shop.timestamps import format_ts, now
from tests import factories

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
ORDERS = ("71", "72", "73")


def _sender(handshake: Path) -> subprocess.Popen[bytes]:
    env = os.environ | {"EMAIL_BACKEND": "tests.dashboard.handshake_mail.EmailBackend", "HANDSHAKE_DIR": str(handshake)}
    command = [sys.executable, "manage.py", "send_notifications", "--follow", "--every", "0.2"]
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _sent(handshake: Path) -> list[str]:
    """The orders of the messages the backend was given so far, in order."""
    path = handshake / "sent"
    return re.findall(r"order (\S+)", path.read_text()) if path.exists() else []


def _wait_until(condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f}s"
        time.sleep(0.05)


def _marked() -> set[str]:
    return {oid for oid in ORDERS if all(n.sent for n in orders.order_collection(oid).notifications)}


def test_a_sender_killed_between_sending_and_marking_sends_again_at_most_the_one_in_flight(
    shop_table: str, tmp_path: Path
) -> None:
    factories.shop_with(customers=1, products=1)
    placed = datetime(2026, 3, 2, 9, 0)
    for n, oid in enumerate(ORDERS):  # one due after the other: the sender takes them oldest first
        orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], placed_at=placed, order_id=oid)
        orders.order_ship(order_id=oid, notify=True, shipped_at=placed.replace(minute=n))
    os.mkfifo(tmp_path / "go")
    first = _sender(tmp_path)
    _wait_until(lambda: len(_sent(tmp_path)) == 1, "the first message handed to the backend")
    with (tmp_path / "go").open("wb") as go:
        go.write(b"1")  # the first counts as sent: the sender marks it, then sends the second and waits
    _wait_until(lambda: len(_sent(tmp_path)) == 2, "the second message handed to the backend")
    first.kill()  # SIGKILL: the second is sent, not marked, its claim still held
    assert first.wait(timeout=30) == -signal.SIGKILL
    done, in_flight = _sent(tmp_path)
    assert _marked() == {done}

    (tmp_path / "go").unlink()  # the new sender's backend returns at once
    second = _sender(tmp_path)
    _wait_until(lambda: len(_marked()) == 2, "the new sender sending the third")
    assert sorted(_sent(tmp_path)) == sorted(ORDERS)  # the claimed one left alone while its lease holds
    (held,) = orders.order_collection(in_flight).notifications
    held.update(actions=[Notification.next_attempt.set(format_ts(now()))])  # its lease runs out
    _wait_until(lambda: _marked() == set(ORDERS), "the new sender sending the one in flight again")
    second.send_signal(signal.SIGTERM)
    assert second.wait(timeout=60) == 0, second.stderr.read() if second.stderr else ""
    assert Counter(_sent(tmp_path)) == {oid: 1 + (oid == in_flight) for oid in ORDERS}
    assert notifications.due(at=now()) == []
