"""Heartbeats: one per stream shard (poller) or execution environment (Lambda), never moving backwards, saying
truthfully how fresh the view is, and expiring when their shard or environment is gone."""

from __future__ import annotations

import time

import pytest

from adminview.core import records
from adminview.reads import sync_freshness
from adminview.reads.sync_freshness import Heartbeat, freshness_of
from adminview.sync import sync_status
from adminview.sync.handler import handler
from adminview.sync.poller import Poller
from returns import keys as return_keys
from shop import keys as shop_keys
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview.streams import new_records
from tests.adminview_helpers import sync_now

pytestmark = pytest.mark.ddb_local


def shop_heartbeats() -> list[sync_freshness.Heartbeat]:
    """The heartbeats of the shop table's stream (the poller follows the returns table's too)."""
    return [beat for beat in sync_freshness.heartbeats() if beat.table in (None, shop_keys.table_name())]


def test_poller_keeps_one_heartbeat_per_shard_that_never_moves_back(shop_table: str, admin_view_table: str) -> None:
    assert sync_freshness.heartbeats() == [] and not sync_freshness.freshness().synced
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    sync_now()
    (beat,) = shop_heartbeats()
    assert beat.shard and beat.writer.endswith("|" + beat.shard)
    first_seq = beat.seq
    assert first_seq and beat.created and beat.apply_lag_s is not None and beat.apply_lag_s >= 0

    orders.order_ship(order_id="o1")
    sync_now()
    (moved,) = shop_heartbeats()
    assert int(moved.seq or 0) > int(first_seq)

    Poller.for_sources(replay=True).run(follow=False)  # every record again, from the oldest: the position stays
    (again,) = shop_heartbeats()
    assert (again.seq, again.created, again.applied_at) == (moved.seq, moved.created, moved.applied_at)


def test_a_sync_that_caught_up_says_up_to_date_not_the_lag_of_its_last_batch(
    shop_table: str, admin_view_table: str
) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    before = time.time()
    sync_now()  # applies the batch, then finds nothing newer
    (beat,) = shop_heartbeats()
    assert beat.caught_up and beat.caught_up_at is not None and beat.caught_up_at >= before
    later = time.time() + 60  # read a minute on, nothing new written meanwhile
    fresh = sync_freshness.overall(sync_freshness.heartbeats(later), later)
    assert fresh.caught_up and fresh.behind_s is None and fresh.as_of is not None
    assert fresh.as_of.timestamp() == pytest.approx(beat.caught_up_at)


def test_a_coarse_creation_time_is_not_shown_as_lag(shop_table: str, admin_view_table: str) -> None:
    # given an order placed on DynamoDB Local, whose stream gives each record's creation time as a whole minute
    factories.shop_with(customers=1, products=1)
    before = time.time()
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    stats = sync_now()
    after = time.time()
    (beat,) = shop_heartbeats()
    assert beat.created is not None and beat.created % records.COARSE_S == 0
    # then the change is known to have been made between the write and the sync's reading it, not at the minute
    assert beat.written is not None and before <= beat.written <= after
    assert beat.apply_lag_s is not None and beat.apply_lag_s <= after - before
    assert stats.lag_s is not None and stats.lag_s <= after - before
    # and the sync, having found nothing newer, says it caught up
    assert stats.caught_up and stats.line().endswith(", caught up")


def test_when_a_change_was_made_is_bounded_by_what_the_sync_knows() -> None:
    def record(created: float) -> dict[str, object]:
        return {"dynamodb": {"SequenceNumber": "1", "ApproximateCreationDateTime": created}}

    minute = 1_800_000_000.0  # a whole minute
    assert records.written_at(record(minute + 12.5), received_at=minute + 13) == minute + 12.5  # precise: itself
    # a whole minute: the change was made within it, and before the sync received it
    assert records.written_at(record(minute), received_at=minute + 13) == minute + 13
    assert records.written_at(record(minute), received_at=minute + 600) == minute + records.COARSE_S  # a backlog
    assert records.written_at({"dynamodb": {}}, received_at=minute) is None


def test_lambda_batches_keep_a_heartbeat_too(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=1, products=1)
    records = new_records()
    handler({"Records": records})
    (beat,) = shop_heartbeats()
    assert beat.writer.startswith("lambda|") and beat.seq == records[-1]["dynamodb"]["SequenceNumber"]
    handler({"Records": records[:1]})  # an older batch (a retry) does not move it back
    assert shop_heartbeats() == [beat]
    fresh = sync_freshness.freshness()  # what can be proven: when the last change was applied, and how late
    assert fresh.as_of == beat.applied_at_time and fresh.lambda_lag_s == beat.apply_lag_s and fresh.behind_s is None


def test_a_closed_shard_leaves_the_sync_page_and_expired_heartbeats_are_not_read(
    shop_table: str, admin_view_table: str
) -> None:
    arn = "arn:aws:dynamodb:us-east-1:000000000000:table/x/stream/1"
    sync_status.record_caught_up(arn, "closed", done=True)
    sync_status.record_caught_up(arn, "open")
    (closed,) = [b for b in sync_freshness.heartbeats() if b.shard == "closed"]
    assert closed.done
    later = time.time() + sync_status.CLOSED_SHARD_TTL_S + 1
    assert [b.shard for b in sync_freshness.heartbeats(now=later)] == ["open"]


NOW = 10_000.0


def test_freshness_is_that_of_the_least_fresh_active_shard() -> None:
    assert freshness_of([], now=NOW).as_of is None
    beats = [
        Heartbeat("a", "s1", "10", created=NOW - 1, applied_at=NOW - 0.5, caught_up_at=NOW - 0.2),  # caught up
        Heartbeat("b", "s2", "11", created=NOW - 9, applied_at=NOW - 0.3),  # working through a backlog
        Heartbeat("old", "s0", "5", created=0.0, applied_at=10.0, done=True),  # a closed shard, read to its end
    ]
    fresh = freshness_of(beats, now=NOW)
    assert not fresh.caught_up and fresh.as_of is not None and fresh.as_of.timestamp() == NOW - 9
    assert fresh.behind_s == pytest.approx(9.0)  # the view lacks changes made 9 s ago

    idle = [Heartbeat("a", "s1", "10", created=NOW - 60, applied_at=NOW - 59, caught_up_at=NOW - 0.4)]
    fresh = freshness_of(idle, now=NOW)  # caught up long after its last batch: it does not repeat that lag
    assert fresh.caught_up and fresh.behind_s is None and fresh.as_of is not None
    assert fresh.as_of.timestamp() == NOW - 0.4


def _return_written() -> None:
    """A return put into the returns table as another service would (the contract's shape)."""
    from tests.adminview.returns_workload import put_return

    put_return("r1", "o1", "1001", "REQUESTED", "2026-03-02T10:00:00", ("2001", "1"))


def test_each_source_has_its_own_heartbeats_and_freshness(shop_table: str, admin_view_table: str) -> None:
    # given records of both tables' streams, applied by the poller
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    _return_written()
    sync_now()
    # then each shard's heartbeat names its source, and each source is up to date on its own
    beats = sync_freshness.heartbeats()
    assert {b.source for b in beats} == {"shop", "returns"}
    assert all(
        b.source_table == (shop_keys.table_name() if b.source == "shop" else return_keys.table_name()) for b in beats
    )
    fresh = sync_freshness.freshness_by_source(beats)
    assert set(fresh) == {"shop", "returns"} and all(f.caught_up for f in fresh.values())
    assert sync_freshness.freshness() == sync_freshness.least_fresh(fresh.values())


def test_one_lambda_environment_keeps_one_heartbeat_per_source(shop_table: str, admin_view_table: str) -> None:
    # given one execution environment serving both event source mappings (one stream's records per batch)
    factories.shop_with(customers=1, products=1)
    shop_records = new_records()
    _return_written()
    returns_records = new_records()
    # when it applies a batch of each, the returns table's last
    handler({"Records": shop_records})
    handler({"Records": returns_records})
    # then neither heartbeat overwrote the other: their sequence numbers, of two streams, do not compare
    beats = {b.source: b for b in sync_freshness.heartbeats()}
    assert set(beats) == {"shop", "returns"}
    assert beats["shop"].writer.startswith("lambda|") and beats["shop"].writer.endswith("|shop")
    assert beats["returns"].writer.endswith("|returns") and beats["returns"].source_table == return_keys.table_name()
    assert beats["shop"].seq == shop_records[-1]["dynamodb"]["SequenceNumber"]
    assert beats["returns"].seq == returns_records[-1]["dynamodb"]["SequenceNumber"]
    fresh = sync_freshness.freshness_by_source(list(beats.values()))
    assert fresh["shop"].as_of == beats["shop"].applied_at_time
    assert fresh["returns"].as_of == beats["returns"].applied_at_time


def test_the_view_is_as_fresh_as_its_least_fresh_source() -> None:
    beats = [
        Heartbeat("s|1", "s1", "10", created=NOW - 1, applied_at=NOW - 0.5, caught_up_at=NOW - 0.2, source="shop"),
        Heartbeat("r|1", "r1", "11", created=NOW - 9, applied_at=NOW - 0.3, source="returns"),  # a backlog
    ]
    fresh = sync_freshness.freshness_by_source(beats, now=NOW)
    assert fresh["shop"].caught_up and fresh["returns"].behind_s == pytest.approx(9.0)
    assert sync_freshness.overall(beats, now=NOW) == fresh["returns"]
    # a source without any heartbeat yet is not synced, and the view's overall freshness leaves it out
    assert not sync_freshness.freshness_by_source(beats[:1], now=NOW)["returns"].synced
    assert sync_freshness.overall(beats[:1], now=NOW) == fresh["shop"]
    assert not sync_freshness.least_fresh([fresh["shop"], sync_freshness.Freshness(None, None)]).synced
    assert not sync_freshness.least_fresh([]).synced
