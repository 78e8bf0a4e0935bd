"""The poller applies a shard's next batch beside the one before: records whose anchors that batch also writes
wait for it, the others go ahead at once; heartbeats and checkpoints still move in stream order."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from adminview import poller as poller_module
from adminview import sync_status, sync_store
from adminview.apply import Outcome, anchors_touched
from adminview.poller import Poller

ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/x/stream/1"


def order_record(seq: str, order_id: str) -> dict[str, Any]:
    key = {"PK": {"S": f"o#{order_id}"}, "SK": {"S": f"o#{order_id}"}}
    image = {**key, "EntityType": {"S": "order"}}
    return {
        "eventID": f"e{seq}",
        "eventName": "INSERT",
        "dynamodb": {"SequenceNumber": seq, "Keys": key, "NewImage": image},
    }


class ScriptedShard:
    """One open shard whose GetRecords answers are the given pages, then nothing."""

    class exceptions:  # mimics botocore client.exceptions
        class ExpiredIteratorException(Exception):
            pass

    def __init__(self, pages: list[list[dict[str, Any]]]) -> None:
        self.pages = pages

    def describe_stream(self, **_: Any) -> dict[str, Any]:
        return {"StreamDescription": {"Shards": [{"ShardId": "S"}]}}

    def get_shard_iterator(self, **_: Any) -> dict[str, str]:
        return {"ShardIterator": "0"}

    def get_records(self, *, ShardIterator: str, Limit: int) -> dict[str, Any]:
        page = int(ShardIterator)
        records = self.pages[page] if page < len(self.pages) else []
        return {"Records": records, "NextShardIterator": str(min(page + 1, len(self.pages)))}


def test_anchors_touched_names_each_records_anchor_and_gives_up_on_unreadable_records() -> None:
    assert anchors_touched([order_record("1", "1"), order_record("2", "1")]) == frozenset({("o#1", "#order")})
    assert anchors_touched([{"eventName": "INSERT", "dynamodb": {"SequenceNumber": "3"}}]) is None


def test_shared_anchors_wait_for_the_batch_before_and_the_others_do_not(
    admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    lock = threading.Lock()
    first_may_end = threading.Event()

    def fake_apply(records: list[dict[str, Any]]) -> Outcome:
        seqs = ",".join(r["dynamodb"]["SequenceNumber"] for r in records)
        with lock:
            events.append(f"start {seqs}")
        if seqs == "1,2":
            assert first_may_end.wait(10), "the free part of the next batch never ran beside this one"
        if seqs == "4":
            first_may_end.set()
        with lock:
            events.append(f"end {seqs}")
        return Outcome(applied=len(records))

    checkpoints: list[str | None] = []
    heartbeats: list[str] = []
    save = sync_store.save_checkpoint
    beat = sync_status.record_heartbeat

    def noting_checkpoint(arn: str, shard_id: str, seq: str | None, done: bool) -> None:
        checkpoints.append(seq)
        save(arn, shard_id, seq, done)

    def noting_heartbeat(applied: list[dict[str, Any]], **kwargs: Any) -> bool:
        heartbeats.append(applied[-1]["dynamodb"]["SequenceNumber"])
        return beat(applied, **kwargs)

    monkeypatch.setattr(poller_module, "apply_records", fake_apply)
    monkeypatch.setattr(sync_store, "save_checkpoint", noting_checkpoint)
    monkeypatch.setattr(sync_status, "record_heartbeat", noting_heartbeat)
    pages = [[order_record("1", "1"), order_record("2", "2")], [order_record("3", "2"), order_record("4", "3")]]
    stats = Poller(stream_arn=ARN, client=ScriptedShard(pages), limit=2).run(follow=False)

    assert stats.records == 4
    # order 3 is applied while the first batch still runs; order 2's newer record only after it
    assert events.index("end 4") < events.index("end 1,2") < events.index("start 3")
    assert checkpoints == ["2", "4"]
    assert heartbeats == ["2", "4"]


def test_without_overlap_batches_are_applied_one_after_another(
    admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []

    def fake_apply(records: list[dict[str, Any]]) -> Outcome:
        seen.append(",".join(r["dynamodb"]["SequenceNumber"] for r in records))
        return Outcome(applied=len(records))

    monkeypatch.setattr(poller_module, "apply_records", fake_apply)
    pages = [[order_record("1", "1"), order_record("2", "2")], [order_record("3", "2"), order_record("4", "3")]]
    Poller(stream_arn=ARN, client=ScriptedShard(pages), limit=2, overlap=False).run(follow=False)
    assert seen == ["1,2", "3,4"]
