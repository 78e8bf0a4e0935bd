"""Heartbeats: one per stream shard (poller) or execution environment (Lambda), never moving backwards."""

from __future__ import annotations

import pytest

from adminview import sync_status
from adminview.handler import handler
from adminview.poller import Poller
from adminview.sync_status import Heartbeat, freshness_of
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview.streams import new_records
from tests.adminview_helpers import sync_now

pytestmark = pytest.mark.ddb_local


def test_poller_keeps_one_heartbeat_per_shard_that_never_moves_back(shop_table: str, admin_view_table: str) -> None:
    assert sync_status.heartbeats() == [] and not sync_status.freshness().synced
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    sync_now()
    (beat,) = sync_status.heartbeats()
    assert beat.shard and beat.writer.endswith("|" + beat.shard)
    first_seq = beat.seq
    assert first_seq and beat.created and beat.lag_s is not None and beat.lag_s >= 0

    orders.order_ship(order_id="o1")
    sync_now()
    (moved,) = sync_status.heartbeats()
    assert int(moved.seq or 0) > int(first_seq)

    Poller.for_shop_table(replay=True).run(follow=False)  # every record again, from the oldest: the heartbeat stays
    assert sync_status.heartbeats() == [moved]
    fresh = sync_status.freshness()
    assert fresh.synced and fresh.as_of is not None and fresh.behind_s == moved.lag_s


def test_lambda_batches_keep_a_heartbeat_too(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=1, products=1)
    records = new_records()
    handler({"Records": records})
    (beat,) = sync_status.heartbeats()
    assert beat.writer.startswith("lambda|") and beat.seq == records[-1]["dynamodb"]["SequenceNumber"]
    handler({"Records": records[:1]})  # an older batch (a retry) does not move it back
    assert sync_status.heartbeats() == [beat]


def test_freshness_is_the_largest_lag_among_active_writers() -> None:
    assert freshness_of([]).as_of is None
    beats = [
        Heartbeat("a", "s1", "10", created=1000.0, applied_at=1000.4),
        Heartbeat("b", "s2", "11", created=990.0, applied_at=999.0),
        Heartbeat("old", "s0", "5", created=0.0, applied_at=10.0),  # a closed shard, long ago
    ]
    fresh = freshness_of(beats)
    assert fresh.as_of is not None and fresh.as_of.timestamp() == 1000.4
    assert fresh.behind_s == pytest.approx(9.0)
