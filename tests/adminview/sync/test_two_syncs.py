"""Two syncs apply the same records at once (a second follower started beside the first, or the Lambda and a local
poller on the same streams) while the shop and returns tables are written: the view ends equal to what both tables
imply, and so do its numbers (DynamoDB Local, real streams, real pollers and handler)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from adminview.repair import rebuild
from adminview.sync.handler import handler
from tests import factories
from tests.adminview.figures_oracle import assert_figures_match
from tests.adminview.order_work import assert_order_work_written
from tests.adminview.repair.test_rebuild_live import Following
from tests.adminview.returns_traffic import assert_both_streams_written, interleaved, put_return
from tests.adminview.streams import new_records
from tests.adminview.sync.test_poller_kill import _writer
from tests.adminview_helpers import sync_now

pytestmark = [
    pytest.mark.ddb_local,
]
REPO = Path(__file__).resolve().parents[3]
DELIVER = """
import json, sys
from adminview.sync.handler import handler
records, size = json.load(open(sys.argv[1])), int(sys.argv[2])
failed = [handler({"Records": records[at : at + size]})["batchItemFailures"] for at in range(0, len(records), size)]
sys.exit(1 if any(failed) else 0)
"""
WRITES = 30  # rounds of the writer: orders placed, cancelled with refunds, shipped, delivered, and returns work


@pytest.fixture
def stocked_with_a_return(shop_table: str, admin_view_table: str, anchor_writes: str) -> None:
    """On each anchor path: the shop, and a return another service wrote (so neither stream is empty when a follower
    starts: see ``test_sync_basic``)."""
    factories.shop_with(customers=3, products=3, stock_each=100_000)
    put_return("k-first", "k-first", "1001", "REQUESTED", "2026-06-01T08:00:00", [("2001", 1)])


def _write(rounds: int) -> None:
    stop, count = threading.Event(), [0]
    writer = threading.Thread(target=_writer, args=(stop, count))
    writer.start()
    try:
        deadline = time.monotonic() + 120
        while count[0] < rounds:
            assert time.monotonic() < deadline, "the writer did not get through its rounds"
            time.sleep(0.05)
    finally:
        stop.set()
        writer.join()


def _assert_view_equals_both_tables() -> None:
    assert_both_streams_written()
    assert_order_work_written()
    found = rebuild.verify(settle_s=0)
    assert found.clean, found.summary()
    assert_figures_match()


def test_two_followers_apply_the_same_records_at_once(stocked_with_a_return: None) -> None:
    with Following(), Following():  # each from the same checkpoints, each reading and applying every record
        _write(WRITES)
    sync_now()  # whatever arrived after the followers stopped
    _assert_view_equals_both_tables()


def test_two_handlers_apply_the_same_mixed_records_at_once(stocked_with_a_return: None, tmp_path: Path) -> None:
    _write(WRITES)
    records = interleaved(new_records(), random.Random(7))  # each stream in its order, the two mixed
    assert len({r["eventSourceARN"] for r in records[: len(records) // 2]}) == 2
    batches = tmp_path / "records.json"
    batches.write_text(json.dumps(records, default=str))
    # two processes (as two syncs are), each delivering every record through the handler in its own batch size
    syncs = [subprocess.Popen([sys.executable, "-c", DELIVER, str(batches), str(size)], cwd=REPO) for size in (5, 7)]
    assert [sync.wait(timeout=300) for sync in syncs] == [0, 0]
    _assert_view_equals_both_tables()


def _item_lane(record: dict[str, Any], lanes: int) -> int:
    return zlib.crc32(json.dumps(record["dynamodb"]["Keys"], sort_keys=True).encode()) % lanes


def test_two_handlers_sharing_a_shards_records_by_item_as_lambda_does_keep_each_items_order(
    stocked_with_a_return: None,
) -> None:
    # given the streams' records split by item key into two lanes, as Lambda splits a shard's records among
    # concurrent batches with ParallelizationFactor 2 (each item's records in order, in one lane)
    _write(WRITES)
    lanes: list[list[dict[str, Any]]] = [[], []]
    for record in new_records():
        lanes[_item_lane(record, len(lanes))].append(record)
    assert all(lanes)
    for lane in lanes:
        seqs: dict[str, list[int]] = {}
        for record in lane:
            key = record["eventSourceARN"] + json.dumps(record["dynamodb"]["Keys"], sort_keys=True)
            seqs.setdefault(key, []).append(int(record["dynamodb"]["SequenceNumber"]))
        assert all(found == sorted(found) for found in seqs.values())

    # when two handlers apply the lanes at once, batches of 10, so an order's collection is folded by both
    def deliver(lane: list[dict[str, Any]]) -> list[Any]:
        return [
            f for at in range(0, len(lane), 10) for f in handler({"Records": lane[at : at + 10]})["batchItemFailures"]
        ]

    with ThreadPoolExecutor(max_workers=len(lanes)) as pool:
        failures = list(pool.map(deliver, lanes))
    # then nothing failed, and the view is what both tables imply
    assert failures == [[], []]
    _assert_view_equals_both_tables()
