"""A deadline for every DynamoDB call made while serving one request.

Timeouts bound one attempt; a page may make several calls one after another (a Query, then a BatchGetItem, then a
freshness read), and a bulk action dozens. Inside ``within(seconds)`` each attempt is checked before it is sent
(botocore's ``before-send`` event, registered once per client by ``guard``): once the deadline has passed, it is not
sent and the call raises ``DeadlineExceeded``, which botocore does not retry. So a request waits at most its
deadline plus one attempt. The deadline is a context variable: it follows the request into worker threads started
with ``dynamo.instrumentation.run_in_context``, and code outside any ``within`` (the sync, the commands) has none.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import BotoCoreError

_MARK = "_shop_admin_deadline_guarded"
_deadline: contextvars.ContextVar[tuple[float, float] | None] = contextvars.ContextVar(
    "dynamodb_deadline", default=None
)


class DeadlineExceeded(BotoCoreError):
    """The request's time for DynamoDB is spent: this attempt was not sent. A ``BotoCoreError``, so PynamoDB wraps
    it like a timeout (its exceptions' ``cause``) and callers that handle botocore's errors handle it too."""

    fmt = "the request's {seconds:g} s for DynamoDB are spent: an attempt of {operation} was not sent"


@contextmanager
def within(seconds: float | None) -> Iterator[None]:
    """DynamoDB calls made inside the block (and in worker threads it starts) send no attempt after ``seconds``;
    None: no deadline."""
    if seconds is None:
        yield
        return
    token = _deadline.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining() -> float | None:
    """Seconds left before the deadline in force (0 once it has passed); None outside any ``within``. For code
    that waits between attempts: a pause that ends after the deadline only leads to an attempt that is refused."""
    current = _deadline.get()
    return None if current is None else max(0.0, current[0] - time.monotonic())


def _refuse_late(event_name: str, **_: Any) -> None:
    current = _deadline.get()
    if current is not None and time.monotonic() >= current[0]:
        raise DeadlineExceeded(seconds=current[1], operation=event_name.rsplit(".", 1)[-1])


def guard(client: Any) -> Any:
    """Register the deadline check on a botocore client once; returns the client."""
    if getattr(client, _MARK, False):
        return client
    service = client.meta.service_model.service_id.hyphenize()
    client.meta.events.register(f"before-send.{service}", _refuse_late)
    setattr(client, _MARK, True)
    return client
