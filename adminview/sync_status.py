"""How far the sync has got: heartbeats per stream shard, the last verify result, and one status read.

Kept in the sync table (beside checkpoints and dead letters), not in the view table, so that rebuild and
verify, which compare the view with the shop table, never have to tell these items apart from the projection,
and the pages' freshness read is one Query on a tiny partition.

- PK ``heartbeat`` SK ``<writer>``: the poller's writer is ``<stream arn>|<shard id>``; a Lambda event does not
  say which shard its batch came from, so in Lambda the writer is the execution environment and the source its
  batches come from, ``lambda|<environment>|<source>`` (one batch at a time, all of one stream's shard: one
  environment serving both event source mappings keeps one heartbeat per source, since sequence numbers of two
  streams do not compare). Attributes: ``Source`` (the source's name), ``SequenceNumber`` (the last one applied;
  ``Seq`` zero-padded),
  ``Created`` (that record's ApproximateCreationDateTime), ``AppliedAt``, ``CaughtUpAt`` (the last time the
  poller asked its shard for more and got nothing: at that instant the view held every change of the shard),
  ``Waiting`` (since when DynamoDB has not answered the poller, while it waits), ``Outage`` (the last outage
  the poller waited out, in words), ``Done`` (the shard is closed and read to its end), ``ExpiresAt`` (TTL).
- PK ``verify`` SK ``last``: At, Ok, Summary of the last ``verify_adminview``.

What the pages say (``Freshness``): "N s behind" means the view lacks changes made N seconds ago. A shard whose
last poll found nothing newer than what was applied is up to date as of that poll; a shard working through a
backlog holds every change made before its last applied record was created, and none after. Each source (shop,
returns) is as fresh as its least fresh active shard, and the view as its least fresh source; a page says which
sources its figures come from (``freshness_by_source``: the same one Query, split by source). For the Lambda,
which runs only when records arrive, what can be proven is when the last change was applied and how long after
it was written.

Heartbeats expire (TTL): an open shard's after a day without a word from its poller, a closed shard's shortly
after it was read to its end, a Lambda environment's an hour after its last batch; reads leave out expired
ones at once (DynamoDB deletes them some time later).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from adminview.models import SyncItem
from adminview.records import body_of, sequence_number
from adminview.sources import sources, table_of
from dynamo import ddb_json
from dynamo.client import client_of
from dynamo.paging import raw_items

HEARTBEAT_PK = "heartbeat"
VERIFY_PK, VERIFY_SK = "verify", "last"
EXPIRES_AT = "ExpiresAt"
OPEN_SHARD_TTL_S = 24 * 3600
CLOSED_SHARD_TTL_S = 15 * 60
LAMBDA_TTL_S = 3600
# Lambda environments that applied nothing for this long do not count for the view's freshness
ACTIVE_WINDOW_S = 15 * 60
SEQ_WIDTH = 48


@dataclass(frozen=True)
class Heartbeat:
    writer: str
    shard: str | None
    seq: str | None
    created: float | None  # epoch seconds of the last record applied
    applied_at: float  # epoch seconds
    caught_up_at: float | None = None
    waiting_since: float | None = None
    outage: str | None = None
    done: bool = False
    source: str | None = None  # the name of the source whose stream it reads (None: a table no source reads)

    @property
    def created_at(self) -> datetime | None:
        return _utc(self.created)

    @property
    def table(self) -> str | None:
        """The source table whose stream this writer reads (None for a Lambda environment's, which says no stream)."""
        return table_of(self.writer.split("|", 1)[0]) if "|" in self.writer else None

    @property
    def source_table(self) -> str | None:
        """The table this writer follows: its stream's, or for a Lambda environment its source's."""
        return self.table or next((s.table_name() for s in sources() if s.name == self.source), None)

    @property
    def applied_at_time(self) -> datetime:
        return datetime.fromtimestamp(self.applied_at, UTC)

    @property
    def caught_up_time(self) -> datetime | None:
        return _utc(self.caught_up_at)

    @property
    def waiting_time(self) -> datetime | None:
        return _utc(self.waiting_since)

    @property
    def is_lambda(self) -> bool:
        return self.shard is None

    @property
    def caught_up(self) -> bool:
        """The shard's last poll found nothing newer than what it had applied."""
        return self.caught_up_at is not None and self.caught_up_at >= self.applied_at

    @property
    def complete_until(self) -> float | None:
        """The view holds every change of this shard made before this instant (epoch seconds)."""
        return self.caught_up_at if self.caught_up else self.created

    @property
    def apply_lag_s(self) -> float | None:
        """How long after it was written the last change applied was applied."""
        return None if self.created is None else max(0.0, self.applied_at - self.created)

    def behind_s(self, now: float) -> float | None:
        """How old the oldest change the view may lack is (None: caught up, or unknown)."""
        if self.caught_up or self.created is None or self.is_lambda:
            return None
        return max(0.0, now - self.created)


def _utc(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


@dataclass(frozen=True)
class VerifyResult:
    at: str
    ok: bool
    summary: str


@dataclass(frozen=True)
class Freshness:
    """What the view's pages say. ``as_of``: the view holds every change made before it; ``caught_up``: the sync
    found nothing newer then; ``behind_s``: how old the oldest change it may lack is (None when caught up or
    unknown). ``lambda_lag_s``: without a poller, how long after it was written the last change was applied."""

    as_of: datetime | None
    behind_s: float | None
    caught_up: bool = False
    lambda_lag_s: float | None = None

    @property
    def synced(self) -> bool:
        return self.as_of is not None


@dataclass(frozen=True)
class SourceSync:
    """One source's writers and how fresh the view is for it; ``name`` None: writers of a stream no source of
    the view reads (a table since renamed or removed), kept apart."""

    name: str | None
    table: str | None
    heartbeats: list[Heartbeat]
    freshness: Freshness


@dataclass(frozen=True)
class SyncStatus:
    heartbeats: list[Heartbeat]
    freshness: Freshness
    dead_letters: int
    last_verify: VerifyResult | None
    sources: list[SourceSync] = field(default_factory=list)


def source_name(stream_arn: object) -> str | None:
    """The name of the source whose table a stream ARN (a record's ``eventSourceARN``) belongs to."""
    table = table_of(stream_arn)
    return next((s.name for s in sources() if table is not None and s.table_name() == table), None)


def _writer(stream_arn: str | None, shard_id: str | None) -> str:
    if shard_id:
        return f"{stream_arn or '-'}|{shard_id}"
    environment = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME") or f"pid-{os.getpid()}"
    return f"lambda|{environment}|{source_name(stream_arn) or table_of(stream_arn) or '-'}"


def _created(record: Any) -> float | None:
    value = body_of(record).get("ApproximateCreationDateTime")
    if isinstance(value, datetime):
        return value.timestamp()
    return float(value) if isinstance(value, int | float) else None


def _table() -> tuple[Any, str]:
    return client_of(SyncItem), str(SyncItem.Meta.table_name)


def _update(writer: str, sets: dict[str, Any], *, remove: tuple[str, ...] = (), condition: str | None = None) -> None:
    """One UpdateItem of a heartbeat: ``sets`` (attribute -> DynamoDB JSON value) set, ``remove`` removed. Every
    name goes through ExpressionAttributeNames (``Shard`` is a reserved word); a ``condition`` refers to the
    attributes being set as ``#<name>`` and to their new values as ``:<name>``."""
    names = {f"#{name}": name for name in (*sets, *remove)}
    expression = "SET " + ", ".join(f"#{name} = :{name}" for name in sets)
    if remove:
        expression += " REMOVE " + ", ".join(f"#{name}" for name in remove)
    params: dict[str, Any] = {
        "TableName": _table()[1],
        "Key": ddb_json.key(HEARTBEAT_PK, writer),
        "UpdateExpression": expression,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": {f":{name}": value for name, value in sets.items()},
    }
    if condition:
        params["ConditionExpression"] = condition
    _table()[0].update_item(**params)


def record_heartbeat(
    applied: Sequence[Any],
    *,
    shard_id: str | None = None,
    clock: Callable[[], float] = time.time,
) -> bool:
    """Note the last record of a batch as this writer's position. False when the stored heartbeat is newer.
    Other attributes of the heartbeat (when it last caught up, an outage it noted) are kept."""
    last = next((r for r in reversed(applied) if sequence_number(r) is not None), None)
    if last is None:
        return False
    seq = str(sequence_number(last)).zfill(SEQ_WIDTH)
    created = _created(last)
    applied_at = clock()
    arn = last.get("eventSourceARN") if isinstance(last.get("eventSourceARN"), str) else None
    sets: dict[str, Any] = {
        "Seq": ddb_json.s(seq),  # zero-padded: compares as a string
        "SequenceNumber": ddb_json.s(str(sequence_number(last))),
        "Created": ddb_json.n(created if created is not None else applied_at),
        "AppliedAt": ddb_json.n(applied_at),
        EXPIRES_AT: ddb_json.n(int(applied_at) + (OPEN_SHARD_TTL_S if shard_id else LAMBDA_TTL_S)),
    }
    if shard_id:
        sets["Shard"] = ddb_json.s(shard_id)
    if arn:
        sets["Stream"] = ddb_json.s(arn)
    if name := source_name(arn):
        sets["Source"] = ddb_json.s(name)
    try:
        _update(
            _writer(arn, shard_id),
            sets,
            condition="attribute_not_exists(#Created) OR #Created < :Created OR (#Created = :Created AND #Seq < :Seq)",
        )
    except _table()[0].exceptions.ConditionalCheckFailedException:
        return False
    return True


def record_caught_up(
    stream_arn: str, shard_id: str, *, done: bool = False, clock: Callable[[], float] = time.time
) -> None:
    """The poller asked its shard for more and got nothing (``done``: the shard is closed and read to its end).
    A closed shard's heartbeat expires soon after."""
    now = clock()
    sets: dict[str, Any] = {
        "CaughtUpAt": ddb_json.n(now),
        EXPIRES_AT: ddb_json.n(int(now) + (CLOSED_SHARD_TTL_S if done else OPEN_SHARD_TTL_S)),
        "Shard": ddb_json.s(shard_id),
        "Stream": ddb_json.s(stream_arn),
    }
    if name := source_name(stream_arn):
        sets["Source"] = ddb_json.s(name)
    if done:
        sets["Done"] = ddb_json.n(1)
    _update(_writer(stream_arn, shard_id), sets, remove=("Waiting",))


def record_outage(stream_arn: str, shard_id: str, *, since: float, ended: float | None) -> None:
    """The poller is waiting for DynamoDB (``ended`` None) or has waited out an outage: shown on ``/sync/``.
    Best effort: during an outage this write may well fail too."""
    writer = _writer(stream_arn, shard_id)
    if ended is None:
        _update(writer, {"Waiting": ddb_json.n(since)})
        return
    start, end = (datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S") for t in (since, ended))
    text = f"DynamoDB did not answer from {start} to {end} UTC ({ended - since:.0f} s); the sync waited and caught up"
    _update(writer, {"Outage": ddb_json.s(text)}, remove=("Waiting",))


def _heartbeat(raw: dict[str, Any]) -> Heartbeat:
    writer = ddb_json.item_key(raw)[1]
    return Heartbeat(
        writer=writer,
        shard=ddb_json.string(raw, "Shard"),
        seq=ddb_json.string(raw, "SequenceNumber"),
        created=ddb_json.number(raw, "Created"),
        applied_at=ddb_json.number(raw, "AppliedAt") or 0.0,
        caught_up_at=ddb_json.number(raw, "CaughtUpAt"),
        waiting_since=ddb_json.number(raw, "Waiting"),
        outage=ddb_json.string(raw, "Outage"),
        done=bool(ddb_json.number(raw, "Done")),
        # a poller's heartbeat noted before sources were named (or only by an outage) says it by its stream
        source=ddb_json.string(raw, "Source") or source_name(ddb_json.string(raw, "Stream") or writer.split("|")[0]),
    )


def heartbeats(now: float | None = None) -> list[Heartbeat]:
    """Every writer's heartbeat that has not expired: one Query of the ``heartbeat`` partition."""
    now = time.time() if now is None else now
    client, table = _table()
    items = raw_items(
        client,
        "query",
        TableName=table,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": ddb_json.s(HEARTBEAT_PK)},
    )
    live = [i for i in items if (ddb_json.number(i, EXPIRES_AT) or now + 1) > now]
    return sorted((_heartbeat(i) for i in live), key=lambda h: h.applied_at, reverse=True)


def freshness_of(beats: Sequence[Heartbeat], now: float | None = None) -> Freshness:
    """The view is as fresh as its least fresh shard. Pollers' shards say exactly how fresh they are; without
    a poller (Lambda), the newest batch says when the last change was applied and how late."""
    now = time.time() if now is None else now
    shards = [b for b in beats if not b.is_lambda and not b.done and b.complete_until is not None]
    if shards:
        worst = min(shards, key=lambda b: b.complete_until or 0.0)
        until = worst.complete_until or 0.0
        return Freshness(datetime.fromtimestamp(until, UTC), worst.behind_s(now), caught_up=worst.caught_up)
    lambdas = [b for b in beats if b.is_lambda and now - b.applied_at <= ACTIVE_WINDOW_S]
    if lambdas:
        newest = max(lambdas, key=lambda b: b.applied_at)
        return Freshness(newest.applied_at_time, None, lambda_lag_s=newest.apply_lag_s)
    finished = [b for b in beats if b.done]
    if finished:  # every shard read to its end: up to date as of the last of them
        last = max(finished, key=lambda b: b.caught_up_at or b.applied_at)
        return Freshness(_utc(last.caught_up_at or last.applied_at), None, caught_up=True)
    return Freshness(None, None)


def least_fresh(found: Iterable[Freshness]) -> Freshness:
    """The least fresh of several (a source not synced yet before any other; then the earliest ``as_of``, the
    instant before which the view holds every change); not synced when there are none."""
    return min(
        found,
        key=lambda f: (f.synced, f.as_of or datetime.min.replace(tzinfo=UTC), f.caught_up),
        default=Freshness(None, None),
    )


def freshness_by_source(beats: Sequence[Heartbeat], now: float | None = None) -> dict[str, Freshness]:
    """Each source's freshness (every source of the view, by name, whether or not it has a heartbeat yet), from
    its own writers' heartbeats: the same Query as the view's, split here."""
    return {s.name: freshness_of([b for b in beats if b.source == s.name], now) for s in sources()}


def overall(beats: Sequence[Heartbeat], now: float | None = None) -> Freshness:
    """The view as a whole is as fresh as its least fresh source among those that have a heartbeat (a source
    whose stream never had a record to apply, in Lambda, says nothing)."""
    by_source = freshness_by_source(beats, now)
    return least_fresh(by_source[name] for name in by_source if any(b.source == name for b in beats))


def freshness() -> Freshness:
    return overall(heartbeats())


def store_verify_result(*, ok: bool, summary: str, at: datetime | None = None) -> None:
    when = (at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    SyncItem(VERIFY_PK, VERIFY_SK, at=when, done=1 if ok else 0, error=summary[:4000]).save()


def last_verify() -> VerifyResult | None:
    try:
        row = SyncItem.get(VERIFY_PK, VERIFY_SK)
    except SyncItem.DoesNotExist:
        return None
    return VerifyResult(at=row.at or "", ok=bool(row.done), summary=row.error or "")


def by_source(beats: Sequence[Heartbeat], now: float | None = None) -> list[SourceSync]:
    """The writers grouped by source (every source of the view, in its order), then those of tables no source
    reads, one group per table."""
    fresh = freshness_by_source(beats, now)
    groups = [
        SourceSync(s.name, s.table_name(), [b for b in beats if b.source == s.name], fresh[s.name]) for s in sources()
    ]
    strays: dict[str | None, list[Heartbeat]] = {}
    for beat in beats:
        if beat.source not in fresh:
            strays.setdefault(beat.source_table, []).append(beat)
    groups += [SourceSync(None, table, found, freshness_of(found, now)) for table, found in strays.items()]
    return groups


def sync_status() -> SyncStatus:
    """The sync page's facts: heartbeats (one Query), dead-letter count (one COUNT Query), last verify (GetItem)."""
    from adminview.sync_store import dead_letter_count

    beats, now = heartbeats(), time.time()
    return SyncStatus(beats, overall(beats, now), dead_letter_count(), last_verify(), by_source(beats, now))
