"""A transaction cancelled only for capacity or a conflict is sent again with backoff, within a budget of waiting
and the request's deadline; a failed condition is never retried as throttling (fake clients, no engine)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from dynamo import deadline, transactions
from dynamo.backoff import Backoff
from tests.dynamo.cancelling import EXCEPTIONS, cancellation

ACTIONS = [
    {"Put": {"TableName": "View", "Item": {"PK": {"S": "o#1"}, "SK": {"S": "#counted"}}}},
    {
        "Update": {
            "TableName": "View",
            "Key": {"PK": {"S": "STATS#0"}, "SK": {"S": "day"}},
            "UpdateExpression": "ADD n :1",
        }
    },
]


class Cancelling:
    """Answers each TransactWriteItems with the next cancellation in ``answers`` (repeating the last one when
    ``forever``), then accepts it."""

    exceptions = EXCEPTIONS

    def __init__(self, *answers: Exception, forever: bool = False) -> None:
        self.answers = list(answers)
        self.forever = forever
        self.sends = 0

    def transact_write_items(self, **params: Any) -> dict[str, Any]:
        assert params["TransactItems"] == ACTIONS
        self.sends += 1
        if self.forever:
            raise self.answers[-1]
        if self.answers:
            raise self.answers.pop(0)
        return {}


def patient(slept: list[float], budget_s: float = 30.0) -> Backoff:
    return Backoff(base_s=0.05, cap_s=5.0, budget_s=budget_s, sleep=slept.append)


def test_throttled_or_conflicting_transactions_are_sent_again_until_they_go_through() -> None:
    # given a transaction DynamoDB cancels three times for capacity or a conflict, then accepts
    client = Cancelling(
        cancellation(None, "ThrottlingError"),
        cancellation("TransactionConflict", None),
        cancellation("ProvisionedThroughputExceeded", "ThrottlingError"),
    )
    slept: list[float] = []
    # when it is written, then it went through on the fourth send, after growing, capped pauses
    transactions.write(client, ACTIONS, retry=patient(slept))
    assert client.sends == 4
    assert len(slept) == 3 and all(0 <= s <= 0.05 * 2**i for i, s in enumerate(slept))


def test_a_failed_condition_beside_throttling_is_a_lost_race_not_retried() -> None:
    # given a transaction whose condition failed while another of its actions was throttled
    client = Cancelling(cancellation("ThrottlingError", "ConditionalCheckFailed"))
    slept: list[float] = []
    # when it is written, then it fails at once, as a condition that failed (the caller reads again)
    with pytest.raises(transactions.TransactionCancelled) as cancelled:
        transactions.write(client, ACTIONS, retry=patient(slept))
    assert client.sends == 1 and slept == []
    assert cancelled.value.failed("ConditionalCheckFailed") == ["1"]
    assert cancelled.value.lost_race and not cancelled.value.only_conflicts


@pytest.mark.parametrize("code", ["ValidationError", "ItemCollectionSizeLimitExceeded"])
def test_other_cancellations_are_not_retried(code: str) -> None:
    client = Cancelling(cancellation(code, "ThrottlingError"))
    with pytest.raises(transactions.TransactionCancelled) as cancelled:
        transactions.write(client, ACTIONS, retry=patient([]))
    assert client.sends == 1 and not cancelled.value.lost_race


def test_a_throttle_that_never_stops_ends_in_an_error_once_the_budget_is_spent() -> None:
    # given a transaction DynamoDB keeps cancelling for capacity
    client = Cancelling(cancellation(None, "ThrottlingError"), forever=True)
    slept: list[float] = []
    # when it is written with 2 s of pauses allowed, then it gives up after exactly that much waiting
    with pytest.raises(transactions.TransactionCancelled) as cancelled:
        transactions.write(client, ACTIONS, retry=patient(slept, budget_s=2.0))
    assert sum(slept) == pytest.approx(2.0) and client.sends == len(slept) + 1
    assert cancelled.value.reasons == {"1": "ThrottlingError"} and not cancelled.value.lost_race
    assert f"still so after {client.sends} sends, 2.0 s" in str(cancelled.value)


def test_pauses_end_before_the_requests_deadline() -> None:
    # given a request with 0.3 s left for DynamoDB and a transaction DynamoDB keeps cancelling for capacity
    client = Cancelling(cancellation("ThrottlingError", None), forever=True)
    pauses: list[float] = []

    def pause(seconds: float) -> None:  # a real pause, noted: the deadline's clock moves as it does
        pauses.append(seconds)
        time.sleep(seconds)

    # when it is written, then it gives up before the deadline instead of pausing past it
    with deadline.within(0.3), pytest.raises(transactions.TransactionCancelled):
        transactions.write(client, ACTIONS, retry=Backoff(base_s=0.05, cap_s=5.0, budget_s=30.0, sleep=pause))
    assert pauses and sum(pauses) <= 0.3  # each pause ended before the deadline, however slow the machine
