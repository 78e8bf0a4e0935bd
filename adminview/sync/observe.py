"""One report per batch of stream records, the same from the Lambda handler and the local poller: one JSON log line
(Powertools' Logger) and one set of CloudWatch metrics in the embedded metric format, which CloudWatch Logs turns
into metrics without an API call. A batch comes from one stream, so it names its source, and its metrics go out
under ``service`` (what the template's alarms watch) and ``service`` + ``source`` (an alarm on one source).
``POWERTOOLS_METRICS_DISABLED=true`` silences the metrics (e.g. on a terminal).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

from adminview.core.records import written_at
from adminview.core.sources import source_name
from adminview.sync.apply import Outcome

NAMESPACE = "ShopAdmin"
SERVICE = "adminview-sync"
UNKNOWN_SOURCE = "unknown"

logger = Logger(service=SERVICE)
# Its JSON line is the one line per batch: not again through the root logger (Lambda's runtime has a handler).
logging.getLogger(SERVICE).propagate = False
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)
_lock = threading.Lock()  # Powertools keeps the metric set in shared state: one batch flushes at a time


@dataclass(frozen=True)
class BatchReport:
    writer: str  # "lambda" or "poller"
    source: str  # the source's name, or UNKNOWN_SOURCE
    records: int
    applied: int
    skipped: int
    failed: int
    dead_letters: int
    lag: float | None  # seconds from the oldest record's change to now; None when no record carries its time


def source_of(records: Sequence[object]) -> str:
    """The source a batch came from, by its first record naming a source's table (a malformed one may not)."""
    arns = (r.get("eventSourceARN") for r in records if isinstance(r, dict))
    return next((name for arn in arns if (name := source_name(arn))), UNKNOWN_SOURCE)


def lag_seconds(
    records: Sequence[dict[str, Any]], *, received_at: float | None = None, now: float | None = None
) -> float | None:
    """Now minus when the batch's oldest change was made (``records.written_at``, bounded by ``received_at``)."""
    now = time.time() if now is None else now
    received = now if received_at is None else received_at
    times = [t for t in (written_at(r, received) for r in records) if t is not None]
    return max(0.0, now - min(times)) if times else None


def report_batch(
    records: Sequence[dict[str, Any]],
    outcome: Outcome,
    *,
    writer: str,
    received_at: float | None = None,
    now: float | None = None,
) -> BatchReport:
    """Log the batch's line and flush its metrics; call once per batch, after it was applied."""
    lag = lag_seconds(records, received_at=received_at, now=now)
    report = BatchReport(
        writer=writer,
        source=source_of(records),
        records=len(records),
        applied=outcome.applied,
        skipped=outcome.skipped,
        failed=len(outcome.failed),
        dead_letters=outcome.dead_lettered,
        lag=None if lag is None else round(lag, 3),
    )
    log = logger.warning if report.failed or report.dead_letters else logger.info
    log("stream batch", extra=asdict(report))
    with _lock:
        metrics.add_dimensions(service=SERVICE, source=report.source)
        metrics.add_metadata(key="writer", value=writer)
        counts = {"AppliedRecords": report.applied, "SkippedRecords": report.skipped, "FailedRecords": report.failed}
        for name, value in (counts | {"DeadLetters": report.dead_letters}).items():
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
        if report.lag is not None:
            metrics.add_metric(name="LagSeconds", unit=MetricUnit.Seconds, value=report.lag)
        try:
            metrics.flush_metrics()
        finally:
            metrics.clear_metrics()  # also when metrics are disabled, which flushes nothing and keeps the set
    return report
