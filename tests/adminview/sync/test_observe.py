"""The per-batch report: one JSON log line and one embedded-metric-format document, from handler and poller."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from adminview.sync import handler, observe
from adminview.sync.apply import Outcome

NOW = 1_800_000_000.0


def _record(seq: int, created: Any) -> dict[str, Any]:
    return {
        "eventID": f"e{seq}",
        "eventName": "MODIFY",
        "dynamodb": {"SequenceNumber": str(seq), "ApproximateCreationDateTime": created},
    }


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """What the Powertools logger writes (it binds its stream when created, so capsys cannot see it)."""
    stream = io.StringIO()
    handler_ = observe.logger.registered_handler
    assert isinstance(handler_, logging.StreamHandler)
    original = handler_.setStream(stream)
    try:
        yield stream
    finally:
        if original is not None:
            handler_.setStream(original)


def _emf(stdout: str) -> list[dict[str, Any]]:
    return [doc for doc in map(json.loads, stdout.splitlines()) if "_aws" in doc]


def _value(doc: dict[str, Any], name: str) -> float:
    """One batch, one value per metric (EMF allows a list of values; Powertools always writes one)."""
    (value,) = doc[name]
    return float(value)


def _lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_one_log_line_and_one_metric_document_per_batch(
    log_lines: io.StringIO, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [_record(1, NOW - 42), _record(2, NOW - 2), {"eventID": "e3", "dynamodb": None}]
    outcome = Outcome(applied=1, skipped=1, failed={"e3": "record has no PK/SK keys"}, dead_lettered=1)

    report = observe.report_batch(records, outcome, writer="lambda", now=NOW)

    assert report == observe.BatchReport(
        "lambda", "unknown", records=3, applied=1, skipped=1, failed=1, dead_letters=1, lag=42.0
    )
    (line,) = _lines(log_lines)
    assert line["level"] == "WARNING"  # something failed
    assert line["service"] == "adminview-sync"
    assert line["message"] == "stream batch"
    fields = ("writer", "source", "records", "applied", "skipped", "failed", "dead_letters", "lag")
    assert {k: line[k] for k in fields} == {
        "writer": "lambda",
        "source": "unknown",  # no record names its table
        "records": 3,
        "applied": 1,
        "skipped": 1,
        "failed": 1,
        "dead_letters": 1,
        "lag": 42.0,
    }

    (doc,) = _emf(capsys.readouterr().out)
    (directive,) = doc["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == "ShopAdmin"
    assert directive["Dimensions"] == [["service"], ["service", "source"]]  # all sources, and each one
    assert (doc["service"], doc["source"]) == ("adminview-sync", "unknown")
    units = {m["Name"]: m["Unit"] for m in directive["Metrics"]}
    assert units == {
        "AppliedRecords": "Count",
        "SkippedRecords": "Count",
        "FailedRecords": "Count",
        "DeadLetters": "Count",
        "LagSeconds": "Seconds",
    }
    assert [_value(doc, name) for name in units] == [1.0, 1.0, 1.0, 1.0, 42.0]
    assert doc["writer"] == "lambda"


def test_a_clean_batch_logs_at_info_and_reports_zero_failures(
    log_lines: io.StringIO, capsys: pytest.CaptureFixture[str]
) -> None:
    created = datetime.fromtimestamp(NOW - 0.5, tz=UTC)  # what boto3 returns before the Lambda shaping
    observe.report_batch([_record(1, created)], Outcome(applied=1), writer="poller", now=NOW)

    (line,) = _lines(log_lines)
    assert line["level"] == "INFO"
    assert (line["failed"], line["dead_letters"], line["lag"], line["writer"]) == (0, 0, 0.5, "poller")
    (doc,) = _emf(capsys.readouterr().out)
    assert [_value(doc, n) for n in ("FailedRecords", "DeadLetters", "LagSeconds")] == [0.0, 0.0, 0.5]


def test_each_batch_names_its_source_in_its_line_and_as_a_metric_dimension(
    log_lines: io.StringIO, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a batch of the returns table's stream (its records name the table by their eventSourceARN)
    monkeypatch.setenv("RETURNS_TABLE_NAME", "ShopReturns")
    arn = "arn:aws:dynamodb:eu-west-1:123456789012:table/ShopReturns/stream/2026-01-01T00:00:00.000"
    records = [{**_record(1, NOW - 1), "eventSourceARN": arn}]
    # when it is reported twice (two batches: the dimension sets do not pile up)
    for _ in range(2):
        observe.report_batch(records, Outcome(applied=1), writer="lambda", now=NOW)
    # then its line and its metrics say "returns", under the service's dimension set and the source's
    assert [line["source"] for line in _lines(log_lines)] == ["returns", "returns"]
    docs = _emf(capsys.readouterr().out)
    assert [doc["_aws"]["CloudWatchMetrics"][0]["Dimensions"] for doc in docs] == [
        [["service"], ["service", "source"]]
    ] * 2
    assert [doc["source"] for doc in docs] == ["returns", "returns"]


def test_lag_is_left_out_when_no_record_carries_a_creation_time(
    log_lines: io.StringIO, capsys: pytest.CaptureFixture[str]
) -> None:
    observe.report_batch([{"eventID": "e1", "dynamodb": {}}], Outcome(skipped=1), writer="lambda", now=NOW)

    (line,) = _lines(log_lines)
    assert "lag" not in line  # Powertools leaves out keys whose value is None
    (doc,) = _emf(capsys.readouterr().out)
    assert "LagSeconds" not in doc
    assert _value(doc, "SkippedRecords") == 1.0


def test_lag_is_the_oldest_record_and_never_negative() -> None:
    assert observe.lag_seconds([_record(1, NOW - 10), _record(2, NOW - 30)], now=NOW) == 30.0
    assert observe.lag_seconds([_record(1, NOW + 5)], now=NOW) == 0.0  # clocks disagree by a little
    assert observe.lag_seconds([_record(1, "yesterday"), _record(2, True)], now=NOW) is None


def test_lag_from_a_whole_minute_is_measured_from_when_the_batch_was_received() -> None:
    # NOW is a whole minute, as DynamoDB Local gives every creation time: the change was made within that minute
    assert observe.lag_seconds([_record(1, NOW - 60)], received_at=NOW - 0.4, now=NOW) == pytest.approx(0.4)
    assert observe.lag_seconds([_record(1, NOW - 600)], received_at=NOW - 1, now=NOW) == 540.0  # a backlog
    assert observe.lag_seconds([_record(1, NOW - 7.5)], received_at=NOW - 0.4, now=NOW) == 7.5  # precise: kept


def test_the_lambda_handler_reports_each_invocation_once(
    monkeypatch: pytest.MonkeyPatch, log_lines: io.StringIO, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [_record(7, NOW - 3)]
    seen: list[list[dict[str, Any]]] = []

    def apply(batch: list[dict[str, Any]]) -> Outcome:
        seen.append(batch)
        return Outcome(failed={"e7": "boom"})

    monkeypatch.setattr(handler, "apply_records", apply)
    response = handler.handler({"Records": records})

    assert response == {"batchItemFailures": [{"itemIdentifier": "7"}]}
    assert seen == [records]
    (line,) = _lines(log_lines)
    assert (line["writer"], line["records"], line["failed"]) == ("lambda", 1, 1)
    (doc,) = _emf(capsys.readouterr().out)
    assert _value(doc, "FailedRecords") == 1.0


@pytest.mark.ddb_local
def test_the_poller_reports_every_batch_it_reads(
    shop_table: str, admin_view_table: str, log_lines: io.StringIO, capsys: pytest.CaptureFixture[str]
) -> None:
    from shop import orders
    from shop.orders import OrderLine
    from tests import factories
    from tests.adminview_helpers import sync_now

    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    stats = sync_now()

    lines = _lines(log_lines)
    assert {line["writer"] for line in lines} == {"poller"}
    assert {line["source"] for line in lines} == {"shop"}  # only the shop table's stream had records
    assert len(lines) == stats.batches > 0
    assert sum(line["records"] for line in lines) == stats.records > 0
    assert sum(line["applied"] for line in lines) == stats.applied
    assert all(line["lag"] is not None and line["lag"] >= 0 for line in lines)
    docs = _emf(capsys.readouterr().out)
    assert len(docs) == len(lines)
    assert sum(_value(doc, "AppliedRecords") for doc in docs) == stats.applied
