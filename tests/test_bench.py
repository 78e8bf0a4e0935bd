"""The benchmark's core check on tiny sizes (seconds, not minutes): it runs end to end against the session's
DynamoDB Local and passes the "calls per page do not grow with the table" check.
"""

from __future__ import annotations

import argparse
from types import SimpleNamespace
from typing import Any

import pytest

from bench import report, stages
from bench.measure import percentile
from bench.run import resolve, run_benchmark
from bench.stream import lambda_record
from dynamo.instrumentation import Call, round_trips


def test_round_trips_count_overlapping_calls_once() -> None:
    def call(start: float | None, ms: float) -> Call:
        return Call("dynamodb", "Query", "t", None, 1, 0.5, 0.0, ms, started=start)

    assert round_trips([]) == 0
    assert round_trips([call(0.0, 10), call(0.001, 10), call(0.002, 5)]) == 1  # parallel
    assert round_trips([call(0.0, 10), call(0.02, 10), call(0.05, 1)]) == 3  # one after another
    assert round_trips([call(0.0, 10), call(0.005, 10), call(0.03, 1), call(None, 1)]) == 3


def test_percentile_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0


def test_growth_check_flags_a_page_whose_calls_grow() -> None:
    def size(orders: int, calls: int) -> dict[str, Any]:
        return {
            "orders": orders,
            "page": {"pending": {"skipped": "dashboard not available"}},
            "data": {"pending": {"calls": calls}, "order": {"calls": 1}},
        }

    assert report.growth_violations({"sizes": [size(10, 2), size(100, 2)]}) == []
    problems = report.growth_violations({"sizes": [size(100, 3), size(10, 2)]})
    assert problems == ["pending (data): 3 DynamoDB calls at 100 orders vs 2 at 10"]


def test_lambda_record_shape() -> None:
    from datetime import datetime

    record = {
        "eventID": "1",
        "eventName": "INSERT",
        "awsRegion": "us-east-1",
        "dynamodb": {
            "ApproximateCreationDateTime": datetime(2026, 1, 1),
            "Keys": {"PK": {"S": "o#1"}},
            "SequenceNumber": "100",
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        },
    }
    shaped = lambda_record(record, "arn:stream", "us-east-1")
    assert shaped["eventSource"] == "aws:dynamodb" and shaped["eventSourceARN"] == "arn:stream"
    assert isinstance(shaped["dynamodb"]["ApproximateCreationDateTime"], int)


def test_pages_read_the_dynamodb_headers() -> None:
    response = SimpleNamespace(
        status_code=200, headers={"X-DynamoDB-Calls": "2", "X-DynamoDB-RCU": "1.5", "Server-Timing": "dynamodb;dur=3"}
    )
    client = SimpleNamespace(get=lambda url: response)
    subjects = stages.Subjects("1", 0, "2", 0, "3", 1, 0)
    measured = stages.pages(client, subjects, repeats=2)
    assert set(measured) == set(stages.PAGES)
    assert measured["pending"]["header_calls"] == "2" and measured["pending"]["repeats"] == 2
    assert stages.pages(None, subjects, repeats=1)["order"] == {"skipped": "dashboard not available"}


def test_resolve_quick_defaults() -> None:
    opts = resolve(["--quick"])
    assert opts.sizes == [200, 2000] and opts.name == "quick"
    assert resolve(["--sizes", "30,10"]).sizes == [10, 30]
    with pytest.raises(SystemExit):
        resolve(["--sizes", "ten"])


@pytest.mark.django_db
def test_quick_core_on_tiny_sizes(ddb_local: Any) -> None:
    opts = argparse.Namespace(
        sizes=[30, 120],
        repeat=2,
        naive_repeat=1,
        lag_samples=2,
        putitem_sample=50,
        workers=4,
        endpoint=ddb_local.endpoint,
        name="test",
        argv=["--test"],
        shared_scan=False,
    )
    results = run_benchmark(opts, django_ready=True, log=lambda text: None)

    assert results["growth_violations"] == []
    assert [s["orders"] for s in results["sizes"]] == [30, 120]
    for size in results["sizes"]:
        assert size["seeding"]["batched"]["items"] == size["items"] > 0
        assert size["sync"]["records"] >= size["items"] and size["sync"]["failed"] == 0
        assert size["lag"]["samples"] == 2
        assert size["data"]["order"]["calls"] == 1 and size["data"]["invoices"]["calls"] == 1
        naive = size["naive"]
        assert naive["pending"]["items_read"] == naive["invoices"]["items_read"] >= size["items"]
        assert naive["pending"]["matched"] == size["subjects"]["pending_orders"]
    small, large = results["sizes"]
    assert large["naive"]["pending"]["rcu"] > small["naive"]["pending"]["rcu"]
    text = report.markdown(results)
    assert "| 120 | order detail | ours: data layer | 1 |" in text and "PASS" in text
