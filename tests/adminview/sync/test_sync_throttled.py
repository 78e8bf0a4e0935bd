"""The sync's counting transactions, cancelled for capacity: sent again, never a failed record or a lost race;
a failed condition beside the throttling is a lost race (fake client, no engine)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from adminview.core import numbers, schema
from adminview.core.anchor import Writes
from adminview.sync import apply
from dynamo import backoff, transactions
from dynamo.backoff import Backoff
from tests.dynamo.cancelling import EXCEPTIONS, cancellation

ANCHOR: schema.Key = ("o#o1", "#order")


class View:
    """The view table's client for the counting transactions: cancels the first ones as given, then accepts."""

    exceptions = EXCEPTIONS

    def __init__(self, *answers: Exception, forever: bool = False) -> None:
        self.answers = list(answers)
        self.forever = forever
        self.sends = 0

    def transact_write_items(self, **params: Any) -> dict[str, Any]:
        self.sends += 1
        if self.answers and (self.forever or self.sends <= len(self.answers)):
            raise self.answers[min(self.sends, len(self.answers)) - 1]
        return {}


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Pauses noted instead of slept, 2 s of them at most."""
    pauses: list[float] = []
    monkeypatch.setattr(backoff, "TRANSACTIONS", Backoff(base_s=0.05, cap_s=5.0, budget_s=2.0, sleep=pauses.append))
    return pauses


def count_one_order(monkeypatch: pytest.MonkeyPatch, view: View) -> set[schema.Key]:
    """Step 4 of a batch for one order whose sums changed: its counted item and the sums, in one transaction."""
    monkeypatch.setattr(apply, "view_client", lambda: (view, "View"))
    sums: numbers.Sums = {("STATS#0", "day#2026-06-01"): {"orders": Decimal(1)}}
    writes = Writes(ANCHOR, {}, None, False, {}, sums)
    counted = numbers.Counted(schema.counted(ANCHOR), {})
    return apply._count({ANCHOR: apply.Folded(writes, counted, applied=1)})


def test_a_throttled_counting_transaction_goes_through_without_failing_its_records(
    monkeypatch: pytest.MonkeyPatch, slept: list[float]
) -> None:
    # given a view that cancels the order's transaction for capacity, then for a conflict, then accepts it
    view = View(cancellation(None, "ThrottlingError"), cancellation("TransactionConflict", None))
    # when the batch counts the order, then it went through: no error (no attempt of the records used), no race
    assert count_one_order(monkeypatch, view) == set()
    assert view.sends == 3 and len(slept) == 2


def test_a_failed_condition_beside_throttling_folds_the_anchor_again(
    monkeypatch: pytest.MonkeyPatch, slept: list[float]
) -> None:
    view = View(cancellation("ConditionalCheckFailed", "ThrottlingError"))
    assert count_one_order(monkeypatch, view) == {ANCHOR}  # read again and folded again, as any lost race
    assert view.sends == 1 and slept == []


def test_a_throttle_that_never_stops_fails_the_batch_after_the_budget(
    monkeypatch: pytest.MonkeyPatch, slept: list[float]
) -> None:
    view = View(cancellation(None, "ThrottlingError"), forever=True)
    with pytest.raises(transactions.TransactionCancelled, match="ThrottlingError"):
        count_one_order(monkeypatch, view)
    assert sum(slept) == pytest.approx(2.0)
