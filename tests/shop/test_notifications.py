"""The customers' notifications as an outbox against DynamoDB Local: written with their action into a write shard,
each sent once, retried with backoff then given up (a sender killed mid-way: ``test_notify_sender_kill``)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from shop import keys, notifications, orders
from shop.models import Notification
from shop.orders import OrderLine
from tests import factories

T0 = datetime(2026, 3, 2, 9, 0)


@pytest.fixture
def shipped(shop_table: str) -> list[str]:
    """Three orders shipped with notify, and one shipped without."""
    factories.shop_with(customers=1, products=1)
    ids = []
    for n in range(4):
        oid = f"50{n}"
        orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], placed_at=T0, order_id=oid)
        orders.order_ship(order_id=oid, notify=n < 3, shipped_at=T0)
        ids.append(oid)
    return ids[:3]


def test_an_action_with_notify_writes_one_notification_in_its_transaction(shipped: list[str]) -> None:
    for oid in shipped:
        (item,) = orders.order_collection(oid).notifications
        assert (item.kind, item.outbox) == ("shipped", keys.outbox(item.notification_id)) and item.sent is None
        assert item.detail == orders.order_collection(oid).shipments[0].shipment_id
    assert orders.order_collection("503").notifications == []


def test_each_is_sent_once_and_a_second_run_sends_nothing(shipped: list[str]) -> None:
    sent: list[str] = []
    assert notifications.send_due(lambda n: sent.append(n.order_id), at=T0) == (3, 0)
    assert sorted(sent) == shipped
    assert notifications.send_due(lambda n: sent.append(n.order_id), at=T0 + timedelta(days=1)) == (0, 0)
    assert len(sent) == 3
    assert all(orders.order_collection(oid).notifications[0].sent == T0 for oid in shipped)


def test_the_outbox_is_write_sharded_and_one_written_before_its_shards_is_still_sent_oldest_first(
    shop_table: str,
) -> None:
    factories.shop_with(customers=1, products=1)
    ids = [f"6{n:02d}" for n in range(12)]
    for n, oid in enumerate(ids):
        when = T0 + timedelta(minutes=n)
        orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], placed_at=when, order_id=oid, notify=True)
    outboxes = {orders.order_collection(oid).notifications[0].outbox for oid in ids}
    assert len(outboxes) > 1 and outboxes <= set(keys.outboxes()) - {keys.UNSENT}
    legacy = orders.order_collection(ids[1]).notifications[0]
    legacy.update(actions=[Notification.outbox.set(keys.UNSENT)])  # as the sender's first version wrote it
    at = T0 + timedelta(hours=1)
    assert [n.order_id for n in notifications.due(at=at, limit=5)] == ids[:5]  # the oldest of every shard, merged
    sent: list[str] = []
    assert notifications.send_due(lambda n: sent.append(n.order_id), at=at, limit=50) == (12, 0)
    assert sent == ids


def test_a_failure_is_retried_with_backoff_then_given_up_and_send_again_puts_it_back(shipped: list[str]) -> None:
    def fails(item: Notification) -> None:
        raise OSError("mail server down")

    at = T0
    for _ in range(notifications.MAX_ATTEMPTS):
        assert notifications.send_due(fails, at=at) == (0, 3)
        assert notifications.send_due(fails, at=at) == (0, 0)  # not due again before its backoff
        at += timedelta(seconds=notifications.RETRY_CAP_S + 1)
    item = orders.order_collection(shipped[0]).notifications[0]
    assert item.given_up is not None and item.outbox is None and item.error == "OSError: mail server down"
    assert notifications.send_due(fails, at=at) == (0, 0)
    notifications.send_again(order_id=shipped[0], notification_id=item.notification_id)
    assert notifications.send_due(lambda n: None, at=datetime.now() + timedelta(seconds=1)) == (1, 0)
