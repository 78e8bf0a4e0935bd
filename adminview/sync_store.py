"""Durable poller state in the sync table: per-shard checkpoints and the dead-letter store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from adminview.models import SyncItem
from shop.timestamps import format_ts, now

DEAD_LETTER_PK = "deadletter"


def _checkpoint_pk(stream_arn: str) -> str:
    return f"checkpoint#{stream_arn}"


@dataclass(frozen=True)
class Checkpoint:
    shard_id: str
    seq: str | None
    done: bool


def load_checkpoints(stream_arn: str) -> dict[str, Checkpoint]:
    return {
        row.sk: Checkpoint(row.sk, row.seq, bool(row.done))
        for row in SyncItem.query(_checkpoint_pk(stream_arn), consistent_read=True)
    }


def save_checkpoint(stream_arn: str, shard_id: str, seq: str | None, done: bool = False) -> None:
    SyncItem(_checkpoint_pk(stream_arn), shard_id, seq=seq, done=1 if done else 0).save()


def dead_letter_key(record: dict[str, Any]) -> str:
    body = record.get("dynamodb", {})
    return f"{str(body.get('SequenceNumber', '')).zfill(48)}#{record.get('eventID', '')}"


def store_dead_letter(record: dict[str, Any], error: str, attempts: int) -> None:
    SyncItem(
        DEAD_LETTER_PK,
        dead_letter_key(record),
        record=json.dumps(record, default=str),
        error=error[:2000],
        attempts=attempts,
        at=format_ts(now()),
    ).save()


@dataclass(frozen=True)
class DeadLetter:
    key: str
    record: dict[str, Any]
    error: str
    attempts: int
    at: str | None

    @property
    def summary(self) -> str:
        body = self.record.get("dynamodb", {})
        keys = body.get("Keys", {})
        pk, sk = keys.get("PK", {}).get("S"), keys.get("SK", {}).get("S")
        return f"{self.at} {self.record.get('eventName')} {pk} {sk} seq={body.get('SequenceNumber')}: {self.error}"


def dead_letters() -> Iterator[DeadLetter]:
    for row in SyncItem.query(DEAD_LETTER_PK, consistent_read=True):
        yield DeadLetter(row.sk, json.loads(row.record or "{}"), row.error or "", int(row.attempts or 0), row.at)


def remove_dead_letter(key: str) -> None:
    SyncItem(DEAD_LETTER_PK, key).delete()
