"""How far the sync has got, written as it goes (a heartbeat per writer, the last verify result: ``SyncItem``), and
the sync page's one status read. Kept in the sync table, not the view, so that rebuild and verify never have to
tell them apart from the projection, and the pages' freshness read (``adminview.reads.sync_freshness``) is one
Query of a tiny partition.

A heartbeat's writer is ``<stream arn>|<shard id>`` for the poller; a Lambda event does not say which shard its
batch came from, so in Lambda it is ``lambda|<environment>|<source>`` (sequence numbers of two streams do not
compare). It holds ``Source``, ``SequenceNumber`` (and ``Seq``, zero-padded), ``Created`` (that record's creation
time: it orders the updates), ``Written`` (``adminview.core.records.written_at``), ``AppliedAt``, ``CaughtUpAt``
(the poller asked for more and got nothing), ``Waiting`` and ``Outage`` (DynamoDB not answering), ``Done`` (the
shard read to its end) and ``ExpiresAt``: an open shard's after a day without a word, a closed shard's soon after
its end, a Lambda environment's an hour after its last batch.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from adminview.core.records import created_at, sequence_number, written_at
from adminview.core.sources import source_name, table_of
from adminview.reads import sync_freshness
from adminview.reads.sync_freshness import EXPIRES_AT, HEARTBEAT_PK, VERIFY_PK, VERIFY_SK, Heartbeat
from adminview.sync.sync_store import dead_letter_count
from adminview.tables import SyncItem, sync_client
from dynamo import ddb_json

OPEN_SHARD_TTL_S = 24 * 3600
CLOSED_SHARD_TTL_S = 15 * 60
LAMBDA_TTL_S = 3600
SEQ_WIDTH = 48


@dataclass(frozen=True)
class SyncStatus:
    heartbeats: list[Heartbeat]
    freshness: sync_freshness.Freshness
    dead_letters: int
    last_verify: sync_freshness.VerifyResult | None
    sources: list[sync_freshness.SourceSync] = field(default_factory=list)


def _writer(stream_arn: str | None, shard_id: str | None) -> str:
    if shard_id:
        return f"{stream_arn or '-'}|{shard_id}"
    environment = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME") or f"pid-{os.getpid()}"
    return f"lambda|{environment}|{source_name(stream_arn) or table_of(stream_arn) or '-'}"


def _update(
    stream_arn: str | None,
    shard_id: str | None,
    sets: dict[str, Any],
    *,
    remove: tuple[str, ...] = (),
    condition: str | None = None,
) -> None:
    """One UpdateItem of the writer's heartbeat: ``sets`` (attribute -> DynamoDB JSON value) set with the writer's
    shard, stream and source, ``remove`` removed. Every name goes through ExpressionAttributeNames (``Shard`` is a
    reserved word); a ``condition`` names the attributes set as ``#<name>``, their new values as ``:<name>``."""
    named = {"Shard": shard_id, "Stream": stream_arn, "Source": source_name(stream_arn)}
    sets = sets | {name: ddb_json.s(value) for name, value in named.items() if value}
    names = {f"#{name}": name for name in (*sets, *remove)}
    expression = "SET " + ", ".join(f"#{name} = :{name}" for name in sets)
    if remove:
        expression += " REMOVE " + ", ".join(f"#{name}" for name in remove)
    params: dict[str, Any] = {
        "TableName": sync_client()[1],
        "Key": ddb_json.key(HEARTBEAT_PK, _writer(stream_arn, shard_id)),
        "UpdateExpression": expression,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": {f":{name}": value for name, value in sets.items()},
    }
    if condition:
        params["ConditionExpression"] = condition
    sync_client()[0].update_item(**params)


def record_heartbeat(
    applied: Sequence[Any],
    *,
    shard_id: str | None = None,
    received_at: float | None = None,
    clock: Callable[[], float] = time.time,
) -> bool:
    """Note the last record of a batch as this writer's position (``received_at``: when the sync got the batch);
    False when the stored heartbeat is newer. Its other attributes (caught up, an outage) are kept."""
    last = next((r for r in reversed(applied) if sequence_number(r) is not None), None)
    if last is None:
        return False
    seq = str(sequence_number(last))
    applied_at = clock()
    created, written = created_at(last), written_at(last, received_at or applied_at)
    arn = last.get("eventSourceARN") if isinstance(last.get("eventSourceARN"), str) else None
    sets = {
        "Seq": ddb_json.s(seq.zfill(SEQ_WIDTH)),  # zero-padded: compares as a string
        "SequenceNumber": ddb_json.s(seq),
        "Created": ddb_json.n(created if created is not None else applied_at),
        "Written": ddb_json.n(written if written is not None else applied_at),
        "AppliedAt": ddb_json.n(applied_at),
        EXPIRES_AT: ddb_json.n(int(applied_at) + (OPEN_SHARD_TTL_S if shard_id else LAMBDA_TTL_S)),
    }
    newer = "attribute_not_exists(#Created) OR #Created < :Created OR (#Created = :Created AND #Seq < :Seq)"
    try:
        _update(arn, shard_id, sets, condition=newer)
    except sync_client()[0].exceptions.ConditionalCheckFailedException:
        return False
    return True


def record_caught_up(
    stream_arn: str, shard_id: str, *, done: bool = False, clock: Callable[[], float] = time.time
) -> None:
    """The poller asked its shard for more and got nothing (``done``: closed and read to its end)."""
    now = clock()
    sets = {
        "CaughtUpAt": ddb_json.n(now),
        EXPIRES_AT: ddb_json.n(int(now) + (CLOSED_SHARD_TTL_S if done else OPEN_SHARD_TTL_S)),
    }
    _update(stream_arn, shard_id, sets | ({"Done": ddb_json.n(1)} if done else {}), remove=("Waiting",))


def record_outage(stream_arn: str, shard_id: str, *, since: float, ended: float | None) -> None:
    """The poller is waiting for DynamoDB (``ended`` None) or has waited out an outage: shown on ``/sync/``.
    Best effort: during an outage this write may well fail too."""
    if ended is None:
        _update(stream_arn, shard_id, {"Waiting": ddb_json.n(since)})
        return
    start, end = (datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S") for t in (since, ended))
    text = f"DynamoDB did not answer from {start} to {end} UTC ({ended - since:.0f} s); the sync waited and caught up"
    _update(stream_arn, shard_id, {"Outage": ddb_json.s(text)}, remove=("Waiting",))


def store_verify_result(*, ok: bool, summary: str, at: datetime | None = None) -> None:
    when = (at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    SyncItem(VERIFY_PK, VERIFY_SK, at=when, done=1 if ok else 0, error=summary[:4000]).save()


def sync_status() -> SyncStatus:
    """The sync page's facts: heartbeats (one Query), dead-letter count (one COUNT Query), last verify (GetItem)."""
    beats, now = sync_freshness.heartbeats(), time.time()
    fresh, sources = sync_freshness.overall(beats, now), sync_freshness.by_source(beats, now)
    return SyncStatus(beats, fresh, dead_letter_count(), sync_freshness.last_verify(), sources)
