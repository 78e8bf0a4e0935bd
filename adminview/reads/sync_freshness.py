"""How fresh the view is, as every page that reads it says: the sync's heartbeats (one Query of a tiny partition of
the sync table, written by ``adminview.sync.sync_status``) and the last verify result. Kept with the reads so that
the repair tools can say how fresh the view is without importing the sync.

"N s behind" means the view lacks changes made N seconds ago: a shard whose last poll found nothing new is up to
date as of that poll, one working through a backlog holds every change made before its last applied record was
written. A source is as fresh as its least fresh active shard, the view as its least fresh source; of the Lambda,
which runs only when records arrive, only when the last change was applied, and how late, can be proven.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adminview.core import values
from adminview.core.sources import source_name, sources, table_of
from adminview.tables import SyncItem, sync_client
from dynamo import ddb_json, item_codec
from dynamo.paging import raw_items

HEARTBEAT_PK = "heartbeat"
VERIFY_PK, VERIFY_SK = "verify", "last"
EXPIRES_AT = "ExpiresAt"
# Lambda environments that applied nothing for this long do not count for the view's freshness
ACTIVE_WINDOW_S = 15 * 60


@dataclass(frozen=True)
class Heartbeat:
    writer: str
    shard: str | None
    seq: str | None
    created: float | None  # epoch seconds of the last record applied (its ApproximateCreationDateTime)
    applied_at: float  # epoch seconds
    caught_up_at: float | None = None
    waiting_since: float | None = None
    outage: str | None = None
    done: bool = False
    source: str | None = None  # the name of the source whose stream it reads (None: a table no source reads)
    written_at: float | None = None  # the latest its change can have been made (None: noted before it was kept)

    @property
    def written(self) -> float | None:
        """When the last change applied was made, at the latest."""
        return self.created if self.written_at is None else self.written_at

    @property
    def written_time(self) -> datetime | None:
        return _utc(self.written)

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
        return self.caught_up_at if self.caught_up else self.written

    @property
    def apply_lag_s(self) -> float | None:
        """How long after it was written the last change applied was applied."""
        return None if self.written is None else max(0.0, self.applied_at - self.written)

    def behind_s(self, now: float) -> float | None:
        """How old the oldest change the view may lack is (None: caught up, or unknown)."""
        if self.caught_up or self.written is None or self.is_lambda:
            return None
        return max(0.0, now - self.written)


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


def _heartbeat(raw: dict[str, Any]) -> Heartbeat:
    writer = values.item_key(raw)[1]
    return Heartbeat(
        writer=writer,
        shard=values.string(raw, "Shard"),
        seq=values.string(raw, "SequenceNumber"),
        created=values.number(raw, "Created"),
        written_at=values.number(raw, "Written"),
        applied_at=values.number(raw, "AppliedAt") or 0.0,
        caught_up_at=values.number(raw, "CaughtUpAt"),
        waiting_since=values.number(raw, "Waiting"),
        outage=values.string(raw, "Outage"),
        done=bool(values.number(raw, "Done")),
        # a poller's heartbeat noted before sources were named (or only by an outage) says it by its stream
        source=values.string(raw, "Source") or source_name(values.string(raw, "Stream") or writer.split("|")[0]),
    )


def heartbeats(now: float | None = None) -> list[Heartbeat]:
    """Every writer's heartbeat that has not expired: one Query of the ``heartbeat`` partition."""
    now = time.time() if now is None else now
    client, table = sync_client()
    items = raw_items(
        client,
        "query",
        TableName=table,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": ddb_json.s(HEARTBEAT_PK)},
    )
    live = [i for i in map(item_codec.decode, items) if (values.number(i, EXPIRES_AT) or now + 1) > now]
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
    """Every source's freshness by name (heartbeat or not yet), from its own writers' heartbeats."""
    return {s.name: freshness_of([b for b in beats if b.source == s.name], now) for s in sources()}


def overall(beats: Sequence[Heartbeat], now: float | None = None) -> Freshness:
    """The view as a whole is as fresh as its least fresh source among those that have a heartbeat (a source
    whose stream never had a record to apply, in Lambda, says nothing)."""
    by_source = freshness_by_source(beats, now)
    return least_fresh(by_source[name] for name in by_source if any(b.source == name for b in beats))


def freshness() -> Freshness:
    return overall(heartbeats())


def last_verify() -> VerifyResult | None:
    try:
        row = SyncItem.get(VERIFY_PK, VERIFY_SK)
    except SyncItem.DoesNotExist:
        return None
    return VerifyResult(at=row.at or "", ok=bool(row.done), summary=row.error or "")


def by_source(beats: Sequence[Heartbeat], now: float | None = None) -> list[SourceSync]:
    """The writers by source (every source, in order), then those of tables no source reads, by table."""
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
