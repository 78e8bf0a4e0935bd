"""Lambda's on-failure messages (SQS) turned into stored dead letters, while the stream still holds the records.

Lambda sends only a failed batch's metadata to the on-failure destination (``DDBStreamBatchInfo``: stream, shard,
first and last sequence number); the records stay in the stream for 24 hours. This reads them back, stores each
whole in the dead-letter store (one the handler stored, with its real error, is left as it is), and only then
deletes the message.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from adminview.sync import sync_store
from adminview.sync.poller import lambda_shape, streams_client
from dynamo import conf

EMPTY_PAGES_LIMIT = 20  # an open shard may answer empty pages before the records; stop after this many
RECEIVE_BATCH = 10


class OnFailureError(ValueError):
    """A message that cannot be turned into dead letters (malformed, or its records are gone)."""


@dataclass(frozen=True)
class BatchInfo:
    stream_arn: str
    shard_id: str
    start: str
    end: str
    size: int | None

    @property
    def range(self) -> str:
        return f"shard {self.shard_id} sequence numbers {self.start}..{self.end}"


def parse_message(body: str) -> BatchInfo:
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise OnFailureError(f"message body is not JSON ({exc})") from exc
    info = data.get("DDBStreamBatchInfo") if isinstance(data, dict) else None
    if not isinstance(info, dict):
        raise OnFailureError("message has no DDBStreamBatchInfo (not a DynamoDB stream on-failure record)")
    names = ("streamArn", "shardId", "startSequenceNumber", "endSequenceNumber")
    missing = [name for name in names if not isinstance(info.get(name), str) or not info[name]]
    if missing:
        raise OnFailureError(f"DDBStreamBatchInfo lacks {', '.join(missing)}")
    arn, shard, start, end = (str(info[name]) for name in names)
    if not (start.isdigit() and end.isdigit()) or int(start) > int(end):
        raise OnFailureError(f"DDBStreamBatchInfo has a bad sequence range {start!r}..{end!r}")
    size = info.get("batchSize")
    return BatchInfo(arn, shard, start, end, size if isinstance(size, int) else None)


def read_range(info: BatchInfo, *, streams: Any = None) -> list[dict[str, Any]]:
    """The records of the batch, in Lambda's event shape; ``OnFailureError`` naming the range when it is gone."""
    client = streams or streams_client()
    lost = f"records of {info.range} are no longer in the stream (trimmed after 24 hours or shard gone): lost"
    try:
        iterator = client.get_shard_iterator(
            StreamArn=info.stream_arn,
            ShardId=info.shard_id,
            ShardIteratorType="AT_SEQUENCE_NUMBER",
            SequenceNumber=info.start,
        )["ShardIterator"]
        found: list[dict[str, Any]] = []
        empty = 0
        while iterator and empty < EMPTY_PAGES_LIMIT:
            page = client.get_records(ShardIterator=iterator, Limit=1000)
            records = page.get("Records", [])
            empty = 0 if records else empty + 1
            for record in records:
                if int(record["dynamodb"]["SequenceNumber"]) > int(info.end):
                    return found
                found.append(lambda_shape(record, info.stream_arn))
            if found and int(found[-1]["dynamodb"]["SequenceNumber"]) == int(info.end):
                return found
            iterator = page.get("NextShardIterator")
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code in ("TrimmedDataAccessException", "ResourceNotFoundException"):
            raise OnFailureError(f"{lost} ({code}); only rebuild_adminview can repair the view now") from exc
        raise
    if not found:
        raise OnFailureError(f"{lost}; only rebuild_adminview can repair the view now")
    return found


@dataclass(frozen=True)
class Imported:
    message_id: str
    info: BatchInfo | None
    stored: int = 0  # new dead letters
    known: int = 0  # already in the store
    error: str | None = None

    @property
    def line(self) -> str:
        what = self.info.range if self.info else f"message {self.message_id}"
        if self.error:
            return f"kept message {self.message_id}: {self.error}"
        return f"imported {what}: {self.stored} stored, {self.known} already stored; message deleted"


def import_message(message: dict[str, Any], *, streams: Any = None) -> Imported:
    """Store the records one on-failure message names; the caller deletes the message only when ``error`` is None."""
    message_id = str(message.get("MessageId", "?"))
    try:
        info = parse_message(str(message.get("Body", "")))
        records = read_range(info, streams=streams)
    except OnFailureError as exc:
        return Imported(message_id, None, error=str(exc))
    error = f"Lambda gave up on this batch after its retries (on-failure message {message_id}, {info.range})"
    stored = sum(sync_store.store_dead_letter_if_absent(record, error) for record in records)
    return Imported(message_id, info, stored=stored, known=len(records) - stored)


def sqs_client() -> Any:
    return boto3.client("sqs", region_name=conf.region(), config=Config(retries={"mode": "standard"}))


def import_queue(
    queue_url: str,
    *,
    sqs: Any = None,
    streams: Any = None,
    max_messages: int | None = None,
    report: Callable[[Imported], None] | None = None,
) -> list[Imported]:
    """Drain the on-failure queue: every message whose records are all stored is deleted; others are kept
    (they come back after the queue's visibility timeout) and reported."""
    queue = sqs or sqs_client()
    done: list[Imported] = []
    seen: set[str] = set()
    while max_messages is None or len(done) < max_messages:
        want = RECEIVE_BATCH if max_messages is None else min(RECEIVE_BATCH, max_messages - len(done))
        messages = queue.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=want, WaitTimeSeconds=1).get(
            "Messages", []
        )
        fresh = [m for m in messages if m.get("MessageId") not in seen]
        if not fresh:
            return done
        for message in fresh:
            seen.add(str(message.get("MessageId")))
            result = import_message(message, streams=streams)
            if result.error is None:
                queue.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
            done.append(result)
            if report:
                report(result)
    return done
