"""The Lambda entry point for the streams of the view's source tables (also called by the local poller).

Returns the partial batch response (``ReportBatchItemFailures``): Lambda retries from the first failed record,
then sends the batch's metadata to the on-failure destination. Every failed record is also kept whole in the
dead-letter store, so nothing depends on that queue or on the stream's 24 hours; each batch moves the writer's
heartbeat (``adminview.sync.sync_status``) and is reported (``adminview.sync.observe``).

Why not Powertools' ``BatchProcessor``: it calls a handler per record, while we fold a whole batch into one
set of calls (one read of the anchors it touches, then their writes) and folds each anchor's records once. Its
contract is kept (same response shape, one bad record never fails the others) and, unlike
``process_partial_response``, this never raises when every record fails, so the poller can still retry and
dead-letter them.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import Any

from adminview.core.records import sequence_number
from adminview.sync import observe, sync_status, sync_store
from adminview.sync.apply import Outcome, apply_records, failure_key

log = logging.getLogger(__name__)


def _setup() -> None:
    """In Lambda there is no Django: only environment variables configure the tables."""
    if "AWS_LAMBDA_FUNCTION_NAME" in os.environ and not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO)


def handle_records(
    records: list[dict[str, Any]],
    *,
    shard_id: str | None = None,
    apply: Callable[[list[dict[str, Any]]], Outcome] | None = None,
    received_at: float | None = None,
) -> tuple[dict[str, list[dict[str, str]]], Outcome]:
    """Apply a batch; keep what failed in the dead-letter store, clear what now applied, move the heartbeat
    (``received_at``: when the sync got the batch; default now). The bookkeeping never turns a batch into an
    exception: if the sync table cannot be written, the failed records are still reported, so they are retried."""
    outcome = (apply or apply_records)(records)
    failed = [(r, outcome.failed[key]) for i, r in enumerate(records) if (key := failure_key(r, i)) in outcome.failed]
    for record, error in failed:
        log.error("stream record %s failed: %s", failure_key(record, 0), error)
        try:
            sync_store.store_dead_letter(record, error)
            outcome.dead_lettered += 1
        except Exception:
            log.exception("could not store the dead letter of record %s", failure_key(record, 0))
    done = [r for i, r in enumerate(records) if failure_key(r, i) not in outcome.failed]
    try:
        sync_store.clear_dead_letters(done)
        sync_status.record_heartbeat(done, shard_id=shard_id, received_at=received_at)
    except Exception:
        log.exception("could not update the sync's bookkeeping (dead letters applied, heartbeat)")
    response = {"batchItemFailures": [{"itemIdentifier": _identifier(r)} for r, _error in failed]}
    return response, outcome


def _identifier(record: Any) -> str:
    """Lambda's ReportBatchItemFailures names DynamoDB records by SequenceNumber. A record without one cannot
    be named: its eventID (or "") makes Lambda retry the whole batch, which is then dead-lettered whole."""
    own = record.get("eventID") if isinstance(record, dict) else None
    return sequence_number(record) or str(own or "")


def handler(event: dict[str, Any], context: Any = None) -> dict[str, list[dict[str, str]]]:
    _setup()
    received_at = time.time()  # the invocation: its records were read from the stream before it
    records = event.get("Records") if isinstance(event, dict) else None
    batch = list(records) if isinstance(records, list) else []
    response, outcome = handle_records(batch, received_at=received_at)
    observe.report_batch(batch, outcome, writer="lambda", received_at=received_at)
    return response
