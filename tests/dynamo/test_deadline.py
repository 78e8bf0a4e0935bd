"""A request's deadline: once it has passed, no DynamoDB attempt is sent, in the request's thread or in the worker
threads it starts; outside a deadline (the sync, the commands) every call goes out."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from pynamodb.exceptions import GetError

from dynamo import deadline
from dynamo.instrumentation import recording, run_in_context
from dynamo.no_answer import did_not_answer
from shop import access_patterns


def read_a_customer() -> object:
    return access_patterns.customer_by_id(customer_id="c1")


def test_calls_go_out_without_a_deadline_or_before_it(shop_table: str) -> None:
    assert read_a_customer() is None
    with deadline.within(None), recording() as log:
        assert read_a_customer() is None
    with deadline.within(60), recording() as log:
        assert read_a_customer() is None
    assert log.count == 1 and log.calls[0].error is None


def test_after_the_deadline_no_call_is_sent(shop_table: str) -> None:
    with deadline.within(0), recording() as log:
        with pytest.raises(GetError) as refused:
            read_a_customer()
        with ThreadPoolExecutor(max_workers=1) as pool, pytest.raises(GetError):
            pool.submit(run_in_context(read_a_customer)).result()
    assert isinstance(refused.value.cause, deadline.DeadlineExceeded) and did_not_answer(refused.value)
    assert "an attempt of GetItem was not sent" in str(refused.value.cause)
    assert [c.error for c in log.calls] == ["DeadlineExceeded", "DeadlineExceeded"]
    assert read_a_customer() is None  # the deadline ended with its block
