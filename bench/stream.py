"""Read the shop table's stream and feed it to the sync handler as Lambda would (batches of 100 records).

This is the benchmark's own minimal reader (no checkpoints: the tables live for one run); it calls the same
``adminview.handler.handler(event, context)`` that the Lambda and the ``sync_adminview`` poller use.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

import boto3

from dynamo import conf

LAMBDA_BATCH = 100  # the event source mapping's default BatchSize


class LambdaContext:
    """The attributes handlers (and Powertools) read from a Lambda context."""

    function_name = "shop-admin-bench-sync"
    function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:shop-admin-bench-sync"
    memory_limit_in_mb = 512
    log_group_name = "/aws/lambda/shop-admin-bench-sync"
    log_stream_name = "bench"

    def __init__(self) -> None:
        self.aws_request_id = str(uuid.uuid4())

    def get_remaining_time_in_millis(self) -> int:
        return 300_000


def lambda_record(record: dict[str, Any], stream_arn: str, region: str) -> dict[str, Any]:
    """A GetRecords record (botocore-parsed) in the shape Lambda delivers it."""
    body = dict(record["dynamodb"])
    created = body.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        body["ApproximateCreationDateTime"] = int(created.timestamp())
    return {
        "eventID": record.get("eventID"),
        "eventName": record.get("eventName"),
        "eventVersion": record.get("eventVersion", "1.1"),
        "eventSource": "aws:dynamodb",
        "awsRegion": record.get("awsRegion", region),
        "dynamodb": body,
        "eventSourceARN": stream_arn,
    }


class StreamDrainer:
    """Keeps one iterator per shard (TRIM_HORIZON first) and hands new records to the handler on ``drain()``."""

    def __init__(self, stream_arn: str, handler: Callable[[dict[str, Any], Any], Any]) -> None:
        self.region = conf.region()
        self.client = boto3.client("dynamodbstreams", region_name=self.region)
        self.arn = stream_arn
        self.handler = handler
        self.iterators: dict[str, str | None] = {}
        self.failures = 0

    def _discover(self) -> None:
        start: str | None = None
        while True:
            kwargs: dict[str, Any] = {"StreamArn": self.arn}
            if start:
                kwargs["ExclusiveStartShardId"] = start
            desc = self.client.describe_stream(**kwargs)["StreamDescription"]
            for shard in desc.get("Shards", []):
                sid = shard["ShardId"]
                if sid not in self.iterators:
                    self.iterators[sid] = self.client.get_shard_iterator(
                        StreamArn=self.arn, ShardId=sid, ShardIteratorType="TRIM_HORIZON"
                    )["ShardIterator"]
            start = desc.get("LastEvaluatedShardId")
            if not start:
                return

    def read(self) -> list[dict[str, Any]]:
        """Every record the stream holds beyond what was read before."""
        self._discover()
        records: list[dict[str, Any]] = []
        for sid, iterator in list(self.iterators.items()):
            while iterator:
                response = self.client.get_records(ShardIterator=iterator, Limit=1000)
                batch = response.get("Records", [])
                records += [dict(record) for record in batch]
                iterator = response.get("NextShardIterator")
                if not batch:
                    break
            self.iterators[sid] = iterator
        return records

    def apply(self, records: list[dict[str, Any]]) -> int:
        """Hand ``records`` to the handler in Lambda-sized batches; returns how many it reported as failed."""
        failed = 0
        for i in range(0, len(records), LAMBDA_BATCH):
            event = {"Records": [lambda_record(r, self.arn, self.region) for r in records[i : i + LAMBDA_BATCH]]}
            result = self.handler(event, LambdaContext())
            if isinstance(result, dict):
                failed += len(result.get("batchItemFailures") or [])
        self.failures += failed
        return failed

    def drain(self) -> int:
        records = self.read()
        self.apply(records)
        return len(records)
