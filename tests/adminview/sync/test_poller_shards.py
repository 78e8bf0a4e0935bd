"""Shard handling of the poller with a scripted streams client: parents before children, expired iterators
renewed from the checkpoint, closed shards remembered across restarts."""

from __future__ import annotations

from typing import Any

import pytest

from adminview.sync import poller as poller_module
from adminview.sync.apply import Outcome
from adminview.sync.poller import Poller

ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/x/stream/1"


class Expired(Exception):
    pass


class Trimmed(Exception):
    pass


class FakeStreams:
    """Parent shard P (closed, records 1-3), child C (open, records 4-5)."""

    class exceptions:  # mimics botocore client.exceptions
        ExpiredIteratorException = Expired
        TrimmedDataAccessException = Trimmed

    def __init__(self) -> None:
        self.data = {"P": ["1", "2", "3"], "C": ["4", "5"]}
        self.expire_once = True

    def describe_stream(self, **_: Any) -> dict[str, Any]:
        return {"StreamDescription": {"Shards": [{"ShardId": "C", "ParentShardId": "P"}, {"ShardId": "P"}]}}

    def get_shard_iterator(
        self, *, ShardId: str, ShardIteratorType: str, SequenceNumber: str | None = None, **_: Any
    ) -> dict[str, str]:
        position = 0
        if ShardIteratorType == "AFTER_SEQUENCE_NUMBER":
            position = self.data[ShardId].index(str(SequenceNumber)) + 1
        return {"ShardIterator": f"{ShardId}:{position}"}

    def get_records(self, *, ShardIterator: str, Limit: int) -> dict[str, Any]:
        shard, position = ShardIterator.split(":")
        if shard == "C" and self.expire_once and position == "2":
            self.expire_once = False
            raise Expired
        start = int(position)
        seqs = self.data[shard][start : start + 2]
        records = [{"eventID": f"e{s}", "eventName": "INSERT", "dynamodb": {"SequenceNumber": s}} for s in seqs]
        end = start + len(seqs)
        closed = shard == "P" and end >= len(self.data[shard])
        return {"Records": records, **({} if closed else {"NextShardIterator": f"{shard}:{end}"})}


def test_parents_first_expired_iterators_renewed(admin_view_table: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def fake_apply(records: list[dict[str, Any]]) -> Outcome:
        seen.extend(r["dynamodb"]["SequenceNumber"] for r in records)
        return Outcome(applied=len(records))

    monkeypatch.setattr(poller_module, "apply_records", fake_apply)
    client = FakeStreams()
    stats = Poller(streams=[ARN], client=client, limit=2).run(follow=False)
    assert seen == ["1", "2", "3", "4", "5"]
    assert stats.records == 5
    assert not client.expire_once  # the expired iterator was renewed from the checkpoint

    client.data["C"].append("6")  # new data after a restart: only it is read
    seen.clear()
    Poller(streams=[ARN], client=client, limit=2).run(follow=False)
    assert seen == ["6"]
    seen.clear()
    Poller(streams=[ARN], client=client, limit=2, replay=True).run(follow=False)
    assert seen == ["1", "2", "3", "4", "5", "6"]
