"""Durable sync state in the sync table: the poller's per-shard checkpoints and the dead-letter store.

Dead letters are stream records kept whole with the error and how many attempts failed, by whichever writer met
them (the Lambda handler or the poller), so ``adminview_deadletters`` lists and replays them alike.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import PutError

from adminview.core import schema, values
from adminview.core.records import body_of, sequence_number
from adminview.core.sources import source_name, table_of
from adminview.tables import SyncItem
from dynamo import item_codec
from shop.timestamps import format_ts, now

DEAD_LETTER_PK = "deadletter"


def _checkpoint_pk(stream_arn: str) -> str:
    return f"checkpoint#{stream_arn}"


def load_checkpoints(stream_arn: str) -> dict[str, tuple[str | None, bool]]:
    """By shard id: the last sequence number applied or dead-lettered, and whether it is read to its end."""
    rows = SyncItem.query(_checkpoint_pk(stream_arn), consistent_read=True)
    return {row.sk: (row.seq, bool(row.done)) for row in rows}


def save_checkpoint(stream_arn: str, shard_id: str, seq: str | None, done: bool = False) -> None:
    SyncItem(_checkpoint_pk(stream_arn), shard_id, seq=seq, done=1 if done else 0).save()


def dead_letter_key(record: Any) -> str:
    """``<zero-padded sequence number>#<eventID>``: sorted in stream order, so the dead letters of one batch are
    one key range. A record without either (its ``dynamodb`` part null) is named by a digest of its content."""
    seq, own = sequence_number(record), record.get("eventID") if isinstance(record, dict) else None
    if seq is None and not own:
        digest = hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode()).hexdigest()[:24]
        return f"{'':0>48}#sha256:{digest}"
    return f"{(seq or '').zfill(48)}#{own or ''}"


def store_dead_letter(record: Any, error: str) -> int:
    """Keep the record whole with its error (stored before: ``Attempts`` + 1); returns the attempts counted."""
    item = SyncItem(DEAD_LETTER_PK, dead_letter_key(record))
    item.update(
        actions=[
            SyncItem.record.set(json.dumps(record, default=str)),
            SyncItem.error.set(error[:2000] or "unknown error"),
            SyncItem.at.set(format_ts(now())),
            SyncItem.attempts.add(1),
        ]
    )
    return int(item.attempts or 1)


def store_dead_letter_if_absent(record: Any, error: str) -> bool:
    """Keep the record unless it is already stored (whose error then says more); False when it was there."""
    try:
        SyncItem(
            DEAD_LETTER_PK,
            dead_letter_key(record),
            record=json.dumps(record, default=str),
            error=error[:2000],
            attempts=0,
            at=format_ts(now()),
        ).save(condition=SyncItem.pk.does_not_exist())
    except PutError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def clear_dead_letters(applied: Sequence[Any]) -> int:
    """Delete the dead letters of these records (applied at last). One Query over the batch's key range (in
    the common case it finds nothing), then one DeleteItem per dead letter found."""
    wanted = {dead_letter_key(r) for r in applied if sequence_number(r) is not None}
    if not wanted:
        return 0
    low, high = min(wanted), max(wanted)
    found = [
        row.sk
        for row in SyncItem.query(
            DEAD_LETTER_PK,
            SyncItem.sk.between(low, high),
            consistent_read=True,
            attributes_to_get=[schema.PK, schema.SK],
        )
        if row.sk in wanted
    ]
    for key in found:
        remove_dead_letter(key)
    return len(found)


@dataclass(frozen=True)
class DeadLetter:
    key: str
    record: Any  # as the stream delivered it: an object, unless the event itself was malformed
    error: str
    attempts: int
    at: str | None

    @property
    def source(self) -> tuple[str | None, str | None]:
        """The shop item's PK and SK, as far as the record says."""
        keys = body_of(self.record).get("Keys")
        found = item_codec.decode(keys) if isinstance(keys, dict) else {}
        return values.string(found, schema.PK), values.string(found, schema.SK)

    @property
    def origin(self) -> str:
        """The source the record came from (``eventSourceARN``), in words: its name, or what is known of its table."""
        arn = self.record.get("eventSourceARN") if isinstance(self.record, dict) else None
        table = table_of(arn)
        return source_name(arn) or (f"unknown table {table}" if table else "unknown table (the record names none)")

    @property
    def position(self) -> str:
        """What the record is, in one line: kind, shop keys, sequence number."""
        pk, sk = self.source
        event = self.record.get("eventName") if isinstance(self.record, dict) else "(not a record)"
        return f"{event} {pk} {sk} seq={body_of(self.record).get('SequenceNumber')}"

    @property
    def summary(self) -> str:
        return f"{self.at} [{self.origin}] {self.position} attempts={self.attempts}: {self.error}"


def _letter(row: SyncItem) -> DeadLetter:
    try:
        record = json.loads(row.record or "null")
    except ValueError:
        record = row.record
    return DeadLetter(row.sk, record, row.error or "", int(row.attempts or 0), row.at)


def dead_letters(*, limit: int | None = None) -> Iterator[DeadLetter]:
    """Oldest first (stream order)."""
    for row in SyncItem.query(DEAD_LETTER_PK, consistent_read=True, limit=limit):
        yield _letter(row)


def dead_letter(key: str) -> DeadLetter | None:
    try:
        return _letter(SyncItem.get(DEAD_LETTER_PK, key, consistent_read=True))
    except SyncItem.DoesNotExist:
        return None


def dead_letter_count() -> int:
    """Query with Select=COUNT: reads keys only, pages of 1 MB (cost grows with dead letters, not the table)."""
    return int(SyncItem.count(DEAD_LETTER_PK, consistent_read=True))


def remove_dead_letter(key: str) -> None:
    SyncItem(DEAD_LETTER_PK, key).delete()
