"""The local poller: reads the streams of the view's source tables the way Lambda's event source mappings do.

Every shard is read, a child only after its parent is finished (so records of one item stay in order), shards
that are ready at the same time in parallel, and each batch goes to the Lambda handler's code; the shard's next
GetRecords is sent while a batch is applied. Delivery is at-least-once: the per-shard checkpoint is advanced only
after every record up to it was applied or dead-lettered, so a SIGKILL at worst replays a batch, and replays
change nothing (the anchors' sequence numbers).

Each shard's heartbeat moves after each batch and, at most once a second, when a poll finds nothing new (the view
is then up to date as of that poll). When DynamoDB does not answer, ``--follow`` waits with growing pauses
(logging and noting the outage once), then carries on from its checkpoints.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Self

import boto3
from botocore.config import Config

from adminview.core.sources import sources
from adminview.sync import observe, sync_status, sync_store
from adminview.sync.apply import Outcome, apply_records, failure_key
from adminview.sync.handler import handle_records
from adminview.tables import ViewItem
from dynamo import backoff, conf, side_by_side
from dynamo.backoff import Backoff, Pauses
from dynamo.client import client_of
from dynamo.instrumentation import run_in_context
from dynamo.no_answer import did_not_answer
from dynamo.patience import PATIENT

log = logging.getLogger(__name__)
REFRESH_S = 10.0  # look for new shards (splits) at least this often even while busy
CAUGHT_UP_EVERY_S = 1.0  # how often an idle shard's heartbeat says "up to date as of now"
MAX_PARALLEL_SHARDS = min(8, side_by_side.MAX_THREADS)  # shards applied at once (one where calls go one by one)
# DynamoDB not answering: ``--follow`` waits with growing pauses, however long the outage lasts
OUTAGES = Backoff(base_s=1.0, cap_s=30.0)


@dataclass
class ShardState:
    arn: str  # the stream it belongs to
    shard_id: str
    parent_id: str | None
    seq: str | None = None  # last sequence number applied or dead-lettered
    done: bool = False
    iterator: str | None = None
    ahead: Future[dict[str, Any]] | None = None  # the next GetRecords, sent while the current batch is applied
    caught_up_noted: float = 0.0  # when the heartbeat last said "nothing new" (monotonic)


@dataclass
class Stats:
    records: int = 0
    applied: int = 0
    skipped: int = 0
    dead_lettered: int = 0
    batches: int = 0
    started: float = field(default_factory=time.monotonic)
    lag_s: float | None = None  # the last batch's (``observe.lag_seconds``)
    caught_up: bool = False  # the last round found nothing new in any shard

    def line(self) -> str:
        lag = "caught up" if self.caught_up else f"lag {self.lag_s:.1f}s" if self.lag_s is not None else "lag -"
        rate = self.records / max(time.monotonic() - self.started, 1e-9)
        return (
            f"records {self.records} ({rate:.0f}/s), applied {self.applied}, skipped {self.skipped}, "
            f"dead-lettered {self.dead_lettered}, {lag}"
        )


def streams_client() -> Any:
    """Endpoint from the standard ``AWS_ENDPOINT_URL_DYNAMODB_STREAMS`` (botocore resolves it); as patient as
    the sync's DynamoDB connections (``dynamo.patience.PATIENT``)."""
    config = Config(
        retries={"mode": "standard", "total_max_attempts": PATIENT.max_retry_attempts + 1},
        connect_timeout=PATIENT.connect_timeout_seconds,
        read_timeout=PATIENT.read_timeout_seconds,
        max_pool_connections=MAX_PARALLEL_SHARDS * 2,
        parameter_validation=False,  # our own few GetRecords parameters; validating them costs CPU per call
    )
    return boto3.client("dynamodbstreams", region_name=conf.region(), config=config)


def lambda_shape(record: dict[str, Any], arn: str) -> dict[str, Any]:
    """Records from GetRecords as Lambda delivers them (JSON-safe, ``eventSourceARN`` set)."""
    body = dict(record.get("dynamodb", {}))
    created = body.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        body["ApproximateCreationDateTime"] = created.timestamp()
    return {**record, "dynamodb": body, "eventSourceARN": arn}


@dataclass(kw_only=True, eq=False)
class Poller:
    """Reads the given streams with the given client (``for_sources`` looks them up); making one does no I/O."""

    streams: Sequence[str]
    client: Any
    replay: bool = False
    limit: int = 1000
    retry: Backoff = backoff.STREAM_BATCHES
    idle_s: float = 0.5
    report: Callable[[str], None] | None = None
    report_every_s: float = 5.0
    sleep: Callable[[float], None] = time.sleep
    stats: Stats = field(default_factory=Stats, init=False)
    shards: dict[tuple[str, str], ShardState] = field(default_factory=dict, init=False)
    _stopping: bool = field(default=False, init=False)
    _last_report: float = field(default_factory=time.monotonic, init=False)
    _last_refresh: float = field(default=0.0, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)  # the stats, updated side by side
    _reads: ThreadPoolExecutor | None = field(default=None, init=False)  # sends each shard's next GetRecords ahead
    _outage_since: float | None = field(default=None, init=False)
    _outage_pauses: Pauses | None = field(default=None, init=False)

    @classmethod
    def for_sources(cls, *, client: Any = None, **options: Any) -> Self:
        """A poller of every source table's stream (ARNs from DescribeTable). A source whose table does not exist
        yet (nothing written, nothing to read) is left out; one without a stream is an error."""
        view = client_of(ViewItem)
        arns = []
        for source in sources():
            try:
                table = view.describe_table(TableName=source.table_name())["Table"]
            except view.exceptions.ResourceNotFoundException:
                log.warning("no table %s: the %s source is not followed", source.table_name(), source.name)
                continue
            arn = table.get("LatestStreamArn")
            if not arn:
                raise LookupError(f"table {source.table_name()} has no stream (run create_tables)")
            arns.append(str(arn))
        return cls(streams=arns, client=client or streams_client(), **options)

    def stop(self) -> None:
        """Finish the batch in hand, save its checkpoint, return (SIGTERM)."""
        self._stopping = True

    # --- shards ----------------------------------------------------------------------------------------

    def refresh_shards(self) -> None:
        self._last_refresh = time.monotonic()
        for arn in self.streams:
            self._refresh(arn)

    def _refresh(self, arn: str) -> None:
        checkpoints = {} if self.replay else sync_store.load_checkpoints(arn)
        after: dict[str, Any] = {}
        while True:
            description = self.client.describe_stream(StreamArn=arn, **after)["StreamDescription"]
            for shard in description.get("Shards", []):
                sid = shard["ShardId"]
                if (arn, sid) not in self.shards:
                    seq, done = checkpoints.get(sid, (None, False))
                    self.shards[(arn, sid)] = ShardState(arn, sid, shard.get("ParentShardId"), seq, done)
            if not description.get("LastEvaluatedShardId"):
                return
            after = {"ExclusiveStartShardId": description["LastEvaluatedShardId"]}

    def _ready(self, shard: ShardState) -> bool:
        if shard.done:
            return False
        parent = self.shards.get((shard.arn, shard.parent_id)) if shard.parent_id else None
        return parent is None or parent.done

    def _iterator(self, shard: ShardState) -> str:
        where = {"ShardIteratorType": "TRIM_HORIZON"}
        if shard.seq:
            where = {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": shard.seq}
        found = self.client.get_shard_iterator(StreamArn=shard.arn, ShardId=shard.shard_id, **where)
        return str(found["ShardIterator"])

    # --- reading ---------------------------------------------------------------------------------------

    def _fetch(self, iterator: str) -> dict[str, Any]:
        return dict(self.client.get_records(ShardIterator=iterator, Limit=self.limit))

    def _get_records(self, shard: ShardState) -> dict[str, Any]:
        """The shard's next GetRecords answer: the one sent ahead while the last batch was applied, if any."""
        for _ in range(3):
            ahead, shard.ahead = shard.ahead, None
            try:
                if ahead is not None:
                    return ahead.result()
                if shard.iterator is None:
                    shard.iterator = self._iterator(shard)
                return self._fetch(shard.iterator)
            except (self.client.exceptions.ExpiredIteratorException, self.client.exceptions.TrimmedDataAccessException):
                # expired, or (DynamoDB Local) taken at the end of a shard that was empty then: renewed from the
                # checkpoint
                shard.iterator = None
        raise RuntimeError(f"shard {shard.shard_id}: iterator keeps expiring")

    def poll_shard(self, shard: ShardState) -> int:
        """One GetRecords on the shard (its next one sent ahead meanwhile); returns how many records it brought."""
        response = self._get_records(shard)
        records = [lambda_shape(r, shard.arn) for r in response.get("Records", [])]
        shard.iterator = response.get("NextShardIterator")
        if records and shard.iterator is not None and not self._stopping and self._reads is not None:
            shard.ahead = self._reads.submit(run_in_context(self._fetch), shard.iterator)
        if records:
            self.process(records, shard_id=shard.shard_id)
            shard.seq = records[-1]["dynamodb"]["SequenceNumber"]
        if shard.iterator is None:
            shard.done = True
        if records or shard.done:
            sync_store.save_checkpoint(shard.arn, shard.shard_id, shard.seq, shard.done)
        if not records:
            self.note_caught_up(shard)
        return len(records)

    def note_caught_up(self, shard: ShardState) -> None:
        """Nothing newer in the shard: the view holds all of it as of now (said at most once a second)."""
        now = time.monotonic()
        if shard.done or now - shard.caught_up_noted >= CAUGHT_UP_EVERY_S:
            sync_status.record_caught_up(shard.arn, shard.shard_id, done=shard.done)
            shard.caught_up_noted = now

    def process(self, records: list[dict[str, Any]], *, shard_id: str | None = None) -> None:
        """Apply a batch through the handler, retrying the failures with backoff: the handler dead-letters each
        failure and clears it once applied, so what still fails is stored when the checkpoint moves past it."""
        received_at = time.time()  # just after GetRecords answered: every change of the batch was made before
        pending = records
        errors: dict[str, str] = {}
        batch = Outcome()  # the whole batch, retries included, for its one report
        for _ in self.retry.sends(self.sleep):
            _response, outcome = handle_records(
                pending, shard_id=shard_id, apply=apply_records, received_at=received_at
            )
            batch.applied += outcome.applied
            batch.skipped += outcome.skipped
            errors = outcome.failed
            failed = {failure_key(r, i) for i, r in enumerate(pending)} & set(outcome.failed)
            if outcome.dead_lettered < len(failed):
                raise RuntimeError("the dead-letter store could not be written; the checkpoint stays where it was")
            pending = [r for i, r in enumerate(pending) if failure_key(r, i) in failed]
            if not pending:
                break
        batch.failed = {
            key: errors.get(key, "unknown error") for key in (failure_key(r, i) for i, r in enumerate(pending))
        }
        batch.dead_lettered = len(pending)
        report = observe.report_batch(records, batch, writer="poller", received_at=received_at)
        with self._lock:
            self.stats.applied += batch.applied
            self.stats.skipped += batch.skipped
            self.stats.dead_lettered += len(pending)
            self.stats.records += len(records)
            self.stats.batches += 1
            self.stats.lag_s, self.stats.caught_up = report.lag, False

    # --- loop ------------------------------------------------------------------------------------------

    def run(self, *, follow: bool) -> Stats:
        """``follow=False``: until every shard is read to its current end. ``True``: until ``stop()``; while
        DynamoDB does not answer, it waits and tries again."""
        self._reads = ThreadPoolExecutor(max_workers=MAX_PARALLEL_SHARDS, thread_name_prefix="poller-read")
        try:
            while not self._stopping:
                try:
                    if not self._round(follow=follow):
                        break
                except Exception as exc:
                    if not (follow and did_not_answer(exc)):
                        raise
                    self._wait_out(exc)
                    continue
                self._answered()
        finally:
            self._reads.shutdown(wait=False, cancel_futures=True)
            self._reads = None
            for shard in self.shards.values():
                shard.ahead = None  # a later run reads on from the shard's iterator
        if self.report:
            self.report(self.stats.line())
        return self.stats

    def _round(self, *, follow: bool) -> bool:
        """Poll every ready shard once (in parallel when several are ready); False when done (``follow`` off)."""
        if not self.shards or time.monotonic() - self._last_refresh > REFRESH_S:
            self.refresh_shards()
        ready = [s for s in self.shards.values() if self._ready(s)]
        if len(ready) > 1:
            with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_SHARDS, len(ready))) as pool:
                got = sum(pool.map(run_in_context(self.poll_shard), ready))
        else:
            got = sum(self.poll_shard(s) for s in ready if not self._stopping)
        self.stats.caught_up = got == 0
        if got == 0:
            self.refresh_shards()  # a split may have added children; a finished parent frees its child
            if not any(self._ready(s) and s.iterator is None for s in self.shards.values()):
                if not follow:
                    return False  # every shard read to its current end
                self.sleep(self.idle_s)
        self._maybe_report()
        return True

    def _wait_out(self, exc: Exception) -> None:
        """DynamoDB does not answer: say so once, note it on the heartbeats if that works, wait, try again."""
        if self._outage_since is None or self._outage_pauses is None:
            self._outage_since, self._outage_pauses = time.time(), replace(OUTAGES, sleep=self.sleep).start()
            log.warning("DynamoDB is not answering (%s); the sync waits and tries again", exc)
            self._note_outage(self._outage_since, None)
        for shard in self.shards.values():
            shard.ahead, shard.iterator = None, None  # read again from the checkpoint
        self._outage_pauses.pause()

    def _answered(self) -> None:
        if self._outage_since is None:
            return
        since, ended = self._outage_since, time.time()
        self._outage_since = None
        log.warning("DynamoDB answers again after %.0f s; the sync carries on", ended - since)
        self._note_outage(since, ended)

    def _note_outage(self, since: float, ended: float | None) -> None:
        """On every open shard's heartbeat, if that works: bookkeeping only, the sync itself goes on."""
        for shard in (s for s in self.shards.values() if not s.done):
            try:
                sync_status.record_outage(shard.arn, shard.shard_id, since=since, ended=ended)
            except Exception as exc:
                log.info("could not note the outage on the sync page: %s", exc)

    def _maybe_report(self) -> None:
        if self.report and time.monotonic() - self._last_report >= self.report_every_s:
            self.report(self.stats.line())
            self._last_report = time.monotonic()


def sync_once(**kwargs: Any) -> Stats:
    """Drain every source's stream into the view once (tests and scripts)."""
    return Poller.for_sources(**kwargs).run(follow=False)
