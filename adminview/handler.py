"""The Lambda entry point for the shop table's stream (also called by the local poller).

Returns the partial batch response (``ReportBatchItemFailures``): Lambda then retries from the first failed
record, and after ``MaximumRetryAttempts`` sends the batch's metadata to the on-failure destination.

Why not Powertools' ``BatchProcessor``: it calls a handler per record, while we fold a whole batch into one
set of BatchWriteItem calls (and one watermark read) and re-derive the buyers join once per order. Its
contract is kept (same response shape, one bad record never fails the others) and, unlike
``process_partial_response``, this never raises when every record fails, so the poller can still retry and
dead-letter them.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from adminview import observe
from adminview.apply import Outcome, apply_records

log = logging.getLogger(__name__)


def _setup() -> None:
    """In Lambda there is no Django: only environment variables configure the tables."""
    if "AWS_LAMBDA_FUNCTION_NAME" in os.environ and not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO)


def handle_records(records: list[dict[str, Any]]) -> tuple[dict[str, list[dict[str, str]]], Outcome]:
    outcome = apply_records(records)
    for item_id, error in outcome.failed.items():
        log.error("stream record %s failed: %s", item_id, error)
    response = {"batchItemFailures": [{"itemIdentifier": item_id} for item_id in _in_order(records, outcome)]}
    return response, outcome


def _in_order(records: list[dict[str, Any]], outcome: Outcome) -> list[str]:
    ids = []
    for record in records:
        seq = str(record.get("dynamodb", {}).get("SequenceNumber"))
        if record.get("eventID") in outcome.failed or seq in outcome.failed:
            # Lambda's ReportBatchItemFailures identifies DynamoDB records by SequenceNumber.
            ids.append(seq)
    return ids


def handler(event: dict[str, Any], context: Any = None) -> dict[str, list[dict[str, str]]]:
    _setup()
    records = list(event.get("Records") or [])
    response, outcome = handle_records(records)
    observe.report_batch(records, outcome, writer="lambda")
    return response
