"""A return's state machine (``returns.lifecycle``): the services' refusals, the queue's open and closed statuses,
when a closed return closed, and who may take each step, all read from its one table."""

from __future__ import annotations

import pytest

from dashboard.permissions import RULES
from dashboard.timeline import STEP_STAMPS, Event
from returns.errors import ReturnConflict
from returns.keys import ReturnStatus
from returns.lifecycle import OPEN_STATUSES, RETURN
from shop.lifecycle import ORDER, Lifecycle, Step
from tests.shop.test_lifecycle import with_rows

REQUESTED, APPROVED, REJECTED, RECEIVED, REFUNDED = ReturnStatus


def test_the_return_table_answers_what_each_status_allows_and_when_it_closed() -> None:
    assert RETURN.allowed(REQUESTED) == ("approve", "reject") and RETURN.allowed(RECEIVED) == ("refund",)
    assert RETURN.allowed(APPROVED) == ("receive", "refund") and RETURN.allowed(REFUNDED) == ()
    assert OPEN_STATUSES == (REQUESTED, APPROVED, RECEIVED) and RETURN.closing_states == (REJECTED, REFUNDED)
    assert RETURN.closed_at() == {REJECTED: "rejected", REFUNDED: "refunded"}
    assert RETURN.step("receive").audited == "return-receive" and RETURN.step("refund").audited == "refund"
    with pytest.raises(
        ReturnConflict, match=r"^return 9 is REQUESTED; only a APPROVED or RECEIVED return can be refunded$"
    ):
        RETURN.require("refund", "9", "REQUESTED")


def test_the_timeline_stands_in_a_steps_stamp_while_the_return_is_where_that_step_leads() -> None:
    assert (
        (Event.RETURN_APPROVED, "approved", frozenset({APPROVED, RECEIVED, REFUNDED})),
        (Event.RETURN_REJECTED, "rejected", frozenset({REJECTED})),
        (Event.RETURN_RECEIVED, "received", frozenset({RECEIVED, REFUNDED})),
    ) == STEP_STAMPS


def test_a_new_row_reopens_a_closed_state() -> None:
    reopening = with_rows(Step("reopen", (REJECTED,), REQUESTED, "reopened", "handle_returns"), base=RETURN)
    assert reopening.closing_states == (REFUNDED,) and reopening.closed_at() == {REFUNDED: "refunded"}
    assert reopening.allowed(REJECTED) == ("reopen",)
    assert reopening.reached("reject") == set(RETURN.states)  # a rejected return may now go anywhere


@pytest.mark.parametrize("lifecycle", [ORDER, RETURN])
def test_every_steps_permission_is_one_the_pages_ask(lifecycle: Lifecycle) -> None:
    for step in lifecycle.steps:
        assert step.permission in RULES
