"""The local poller: reads the shop table's stream the way Lambda's event source mapping does.

Every shard is read, a child only after its parent is finished (so records of one item stay in order),
expired iterators are renewed from the checkpoint, and each batch goes to the same code as the Lambda
handler. Delivery is at-least-once: the per-shard checkpoint (in the sync table) is advanced only after
every record up to it was applied or dead-lettered, so a SIGKILL at any moment at worst replays a batch,
and replays change nothing (watermarks). Records still failing after ``max_attempts`` stay in the
dead-letter store, where the handler put them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Self

import boto3
from botocore.config import Config

from adminview import observe, sync_store
from adminview.apply import Outcome, apply_records, failure_key
from adminview.handler import handle_records
from dynamo import conf
from dynamo.backoff import full_jitter
from dynamo.tables import stream_arn as table_stream_arn

REFRESH_S = 10.0  # look for new shards (splits) at least this often even while busy


@dataclass
class ShardState:
    shard_id: str
    parent_id: str | None
    seq: str | None = None  # last sequence number applied or dead-lettered
    done: bool = False
    iterator: str | None = None


@dataclass
class Stats:
    records: int = 0
    applied: int = 0
    skipped: int = 0
    dead_lettered: int = 0
    batches: int = 0
    started: float = field(default_factory=time.monotonic)
    lag_s: float | None = None

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.records / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        lag = f"{self.lag_s:.1f}s" if self.lag_s is not None else "-"
        return (
            f"records {self.records} ({self.rate:.0f}/s), applied {self.applied}, skipped {self.skipped}, "
            f"dead-lettered {self.dead_lettered}, lag {lag}"
        )


def streams_client() -> Any:
    """Endpoint from the standard ``AWS_ENDPOINT_URL_DYNAMODB_STREAMS`` (botocore resolves it)."""
    return boto3.client(
        "dynamodbstreams", region_name=conf.region(), config=Config(retries={"mode": "standard", "max_attempts": 8})
    )


def lambda_shape(record: dict[str, Any], arn: str) -> dict[str, Any]:
    """Records from GetRecords as Lambda delivers them (JSON-safe, ``eventSourceARN`` set)."""
    body = dict(record.get("dynamodb", {}))
    created = body.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        body["ApproximateCreationDateTime"] = created.timestamp()
    return {**record, "dynamodb": body, "eventSourceARN": arn}


class Poller:
    """Reads one stream with the given client; ``for_shop_table`` looks both up (the constructor does no I/O)."""

    def __init__(
        self,
        *,
        stream_arn: str,
        client: Any,
        replay: bool = False,
        limit: int = 1000,
        max_attempts: int = 3,
        idle_s: float = 0.5,
        report: Callable[[str], None] | None = None,
        report_every_s: float = 5.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.arn = stream_arn
        self.replay = replay
        self.limit = limit
        self.max_attempts = max_attempts
        self.idle_s = idle_s
        self.client = client
        self.report = report
        self.report_every_s = report_every_s
        self.sleep = sleep
        self.stats = Stats()
        self.shards: dict[str, ShardState] = {}
        self._stopping = False
        self._last_report = time.monotonic()
        self._last_refresh = 0.0

    @classmethod
    def for_shop_table(cls, *, stream_arn: str | None = None, client: Any = None, **options: Any) -> Self:
        """A poller of the shop table's stream: its ARN from DescribeTable unless given, a streams client unless
        given; ``options`` go to the constructor."""
        from shop.models import ShopItem

        arn = stream_arn or table_stream_arn(ShopItem)
        if not arn:
            raise LookupError(f"table {ShopItem.Meta.table_name} has no stream (run create_tables)")
        return cls(stream_arn=arn, client=client or streams_client(), **options)

    def stop(self) -> None:
        """Finish the batch in hand, save its checkpoint, return (SIGTERM)."""
        self._stopping = True

    # --- shards ----------------------------------------------------------------------------------------

    def refresh_shards(self) -> None:
        self._last_refresh = time.monotonic()
        checkpoints = {} if self.replay else sync_store.load_checkpoints(self.arn)
        start: str | None = None
        while True:
            kwargs: dict[str, Any] = {"StreamArn": self.arn}
            if start:
                kwargs["ExclusiveStartShardId"] = start
            description = self.client.describe_stream(**kwargs)["StreamDescription"]
            for shard in description.get("Shards", []):
                sid = shard["ShardId"]
                if sid not in self.shards:
                    cp = checkpoints.get(sid)
                    self.shards[sid] = ShardState(
                        sid, shard.get("ParentShardId"), cp.seq if cp else None, cp.done if cp else False
                    )
            start = description.get("LastEvaluatedShardId")
            if not start:
                return

    def _ready(self, shard: ShardState) -> bool:
        if shard.done:
            return False
        parent = self.shards.get(shard.parent_id) if shard.parent_id else None
        return parent is None or parent.done

    def _iterator(self, shard: ShardState) -> str:
        if shard.seq:
            kwargs = {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": shard.seq}
        else:
            kwargs = {"ShardIteratorType": "TRIM_HORIZON"}
        return str(
            self.client.get_shard_iterator(StreamArn=self.arn, ShardId=shard.shard_id, **kwargs)["ShardIterator"]
        )

    # --- reading ---------------------------------------------------------------------------------------

    def _get_records(self, shard: ShardState) -> dict[str, Any]:
        for _ in range(3):
            if shard.iterator is None:
                shard.iterator = self._iterator(shard)
            try:
                return dict(self.client.get_records(ShardIterator=shard.iterator, Limit=self.limit))
            except self.client.exceptions.ExpiredIteratorException:
                shard.iterator = None  # renewed from the checkpoint
        raise RuntimeError(f"shard {shard.shard_id}: iterator keeps expiring")

    def poll_shard(self, shard: ShardState) -> int:
        """One GetRecords on the shard; returns how many records it brought."""
        response = self._get_records(shard)
        records = [lambda_shape(r, self.arn) for r in response.get("Records", [])]
        if records:
            self.process(records, shard_id=shard.shard_id)
            shard.seq = records[-1]["dynamodb"]["SequenceNumber"]
        shard.iterator = response.get("NextShardIterator")
        if shard.iterator is None:
            shard.done = True
        if records or shard.done:
            sync_store.save_checkpoint(self.arn, shard.shard_id, shard.seq, shard.done)
        return len(records)

    def process(self, records: list[dict[str, Any]], *, shard_id: str | None = None) -> None:
        """Apply a batch through the handler; retry the failures with backoff. The handler keeps each failed
        record in the dead-letter store (attempts counted) and clears it once a retry applies it, so what
        still fails after ``max_attempts`` is already stored when the checkpoint moves past it."""
        pending = records
        errors: dict[str, str] = {}
        batch = Outcome()  # the whole batch, retries included, for its one report
        for attempt in range(self.max_attempts):
            _response, outcome = handle_records(pending, shard_id=shard_id, apply=apply_records)
            self.stats.applied += outcome.applied
            self.stats.skipped += outcome.skipped
            batch.applied += outcome.applied
            batch.skipped += outcome.skipped
            errors = outcome.failed
            failed = {failure_key(r, i) for i, r in enumerate(pending)} & set(outcome.failed)
            if outcome.dead_lettered < len(failed):
                raise RuntimeError("the dead-letter store could not be written; the checkpoint stays where it was")
            pending = [r for i, r in enumerate(pending) if failure_key(r, i) in failed]
            if not pending:
                break
            if attempt + 1 < self.max_attempts:
                self.sleep(full_jitter(attempt, base=0.1, cap=5.0))
        self.stats.dead_lettered += len(pending)
        self.stats.records += len(records)
        self.stats.batches += 1
        created = records[-1]["dynamodb"].get("ApproximateCreationDateTime")
        if isinstance(created, int | float):
            self.stats.lag_s = max(0.0, time.time() - float(created))
        batch.failed = {
            key: errors.get(key, "unknown error") for key in (failure_key(r, i) for i, r in enumerate(pending))
        }
        batch.dead_lettered = len(pending)
        observe.report_batch(records, batch, writer="poller")

    # --- loop ------------------------------------------------------------------------------------------

    def run(self, *, follow: bool) -> Stats:
        """``follow=False``: until every shard is read to its current end. ``True``: until ``stop()``."""
        self.refresh_shards()
        while not self._stopping:
            got = 0
            for shard in [s for s in self.shards.values() if self._ready(s)]:
                if self._stopping:
                    break
                got += self.poll_shard(shard)
            if got == 0 or time.monotonic() - self._last_refresh > REFRESH_S:
                self.refresh_shards()  # a split may have added children; a finished parent frees its child
            if got == 0 and not any(self._ready(s) and s.iterator is None for s in self.shards.values()):
                if not follow:
                    break  # every shard read to its current end
                self.sleep(self.idle_s)
            self._maybe_report()
        if self.report:
            self.report(self.stats.line())
        return self.stats

    def _maybe_report(self) -> None:
        if self.report and time.monotonic() - self._last_report >= self.report_every_s:
            self.report(self.stats.line())
            self._last_report = time.monotonic()


def sync_once(**kwargs: Any) -> Stats:
    """Drain the stream into the view once (tests and scripts)."""
    return Poller.for_shop_table(**kwargs).run(follow=False)
