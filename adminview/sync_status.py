"""How far the sync has got: heartbeats per stream shard, the last verify result, and one status read.

Kept in the sync table (beside checkpoints and dead letters), not in the view table, so that rebuild and
verify, which compare the view with the shop table, never have to tell these items apart from the projection
(a rebuild would otherwise delete them as "extra"), and the pages' freshness read is one Query on a tiny
partition.

- PK ``heartbeat`` SK ``<writer>``: SequenceNumber (the last one applied; Seq zero-padded), Created (that record's
  ApproximateCreationDateTime, epoch seconds), AppliedAt (epoch seconds), Shard, Stream. The poller's writer
  is ``<stream arn>|<shard id>``. A Lambda event does not say which shard its batch came from, so in Lambda
  the writer is the execution environment (one batch at a time, one shard's batch each time).
- PK ``verify`` SK ``last``: At, Ok, Summary of the last ``verify_adminview``.

A heartbeat is one conditional PutItem per writer per batch that never moves it backwards (by creation
time, then sequence number), so a replay or a late retry leaves it alone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adminview.models import SyncItem
from adminview.records import body_of, sequence_number
from dynamo import ddb_json
from dynamo.client import client_of
from dynamo.paging import raw_items

HEARTBEAT_PK = "heartbeat"
VERIFY_PK, VERIFY_SK = "verify", "last"
# heartbeats of writers that applied nothing for this long (closed shards, old Lambda environments) are
# listed on the sync page but do not count for the view's lag
ACTIVE_WINDOW_S = 15 * 60
SEQ_WIDTH = 48


@dataclass(frozen=True)
class Heartbeat:
    writer: str
    shard: str | None
    seq: str | None
    created: float | None  # epoch seconds of the last record applied
    applied_at: float  # epoch seconds

    @property
    def created_at(self) -> datetime | None:
        return None if self.created is None else datetime.fromtimestamp(self.created, UTC)

    @property
    def applied_at_time(self) -> datetime:
        return datetime.fromtimestamp(self.applied_at, UTC)

    @property
    def lag_s(self) -> float | None:
        """How far behind the writer was when it applied its last batch."""
        return None if self.created is None else max(0.0, self.applied_at - self.created)


@dataclass(frozen=True)
class VerifyResult:
    at: str
    ok: bool
    summary: str


@dataclass(frozen=True)
class Freshness:
    """What the view's pages say: as of when, how far behind (max over active writers), or never synced."""

    as_of: datetime | None
    behind_s: float | None

    @property
    def synced(self) -> bool:
        return self.as_of is not None


@dataclass(frozen=True)
class SyncStatus:
    heartbeats: list[Heartbeat]
    freshness: Freshness
    dead_letters: int
    last_verify: VerifyResult | None


def _writer(stream_arn: str | None, shard_id: str | None) -> str:
    if shard_id:
        return f"{stream_arn or '-'}|{shard_id}"
    return "lambda|" + (os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME") or f"pid-{os.getpid()}")


def _created(record: Any) -> float | None:
    value = body_of(record).get("ApproximateCreationDateTime")
    if isinstance(value, datetime):
        return value.timestamp()
    return float(value) if isinstance(value, int | float) else None


def record_heartbeat(
    applied: Sequence[Any],
    *,
    shard_id: str | None = None,
    clock: Callable[[], float] = time.time,
) -> bool:
    """Note the last record of a batch as this writer's position. False when the stored heartbeat is newer."""
    last = next((r for r in reversed(applied) if sequence_number(r) is not None), None)
    if last is None:
        return False
    seq = str(sequence_number(last)).zfill(SEQ_WIDTH)
    created = _created(last)
    applied_at = clock()
    arn = last.get("eventSourceARN") if isinstance(last.get("eventSourceARN"), str) else None
    raw: dict[str, dict[str, str]] = {
        **ddb_json.key(HEARTBEAT_PK, _writer(arn, shard_id)),
        "Seq": ddb_json.s(seq),  # zero-padded: compares as a string
        "SequenceNumber": ddb_json.s(str(sequence_number(last))),
    }
    raw["Created"] = ddb_json.n(created if created is not None else applied_at)
    raw["AppliedAt"] = ddb_json.n(applied_at)
    if shard_id:
        raw["Shard"] = ddb_json.s(shard_id)
    if arn:
        raw["Stream"] = ddb_json.s(arn)
    client = client_of(SyncItem)
    try:
        client.put_item(
            TableName=SyncItem.Meta.table_name,
            Item=raw,
            ConditionExpression="attribute_not_exists(Created) OR Created < :c OR (Created = :c AND Seq < :s)",
            ExpressionAttributeValues={":c": raw["Created"], ":s": ddb_json.s(seq)},
        )
    except client.exceptions.ConditionalCheckFailedException:
        return False
    return True


def _heartbeat(raw: dict[str, Any]) -> Heartbeat:
    return Heartbeat(
        writer=ddb_json.item_key(raw)[1],
        shard=ddb_json.string(raw, "Shard"),
        seq=ddb_json.string(raw, "SequenceNumber"),
        created=ddb_json.number(raw, "Created"),
        applied_at=ddb_json.number(raw, "AppliedAt") or 0.0,
    )


def heartbeats() -> list[Heartbeat]:
    """Every writer's heartbeat: one Query of the ``heartbeat`` partition (one page: a few hundred bytes each)."""
    items = raw_items(
        client_of(SyncItem),
        "query",
        TableName=str(SyncItem.Meta.table_name),
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": ddb_json.s(HEARTBEAT_PK)},
    )
    return sorted((_heartbeat(i) for i in items), key=lambda h: h.applied_at, reverse=True)


def freshness_of(beats: Sequence[Heartbeat]) -> Freshness:
    """As of the newest batch applied; behind by the largest lag among writers active around it."""
    if not beats:
        return Freshness(None, None)
    newest = max(b.applied_at for b in beats)
    lags = [b.lag_s for b in beats if b.lag_s is not None and newest - b.applied_at <= ACTIVE_WINDOW_S]
    return Freshness(datetime.fromtimestamp(newest, UTC), max(lags) if lags else None)


def freshness() -> Freshness:
    return freshness_of(heartbeats())


def store_verify_result(*, ok: bool, summary: str, at: datetime | None = None) -> None:
    when = (at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    SyncItem(VERIFY_PK, VERIFY_SK, at=when, done=1 if ok else 0, error=summary[:4000]).save()


def last_verify() -> VerifyResult | None:
    try:
        row = SyncItem.get(VERIFY_PK, VERIFY_SK)
    except SyncItem.DoesNotExist:
        return None
    return VerifyResult(at=row.at or "", ok=bool(row.done), summary=row.error or "")


def sync_status() -> SyncStatus:
    """The sync page's facts: heartbeats (one Query), dead-letter count (one COUNT Query), last verify (GetItem)."""
    from adminview.sync_store import dead_letter_count

    beats = heartbeats()
    return SyncStatus(beats, freshness_of(beats), dead_letter_count(), last_verify())
