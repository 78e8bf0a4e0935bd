"""Retrying a domain write that lost a race: full-jitter exponential backoff, then ``Busy``."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TypeVar

from dynamo.backoff import full_jitter
from shop.errors import Busy

MAX_ATTEMPTS = 8
RETRY_BASE_S = 0.01
RETRY_CAP_S = 1.0

T = TypeVar("T")


def retrying(action: Callable[[], T], *, what: str) -> T:
    """Run ``action``; on a stock race (ConditionalCheckFailed on stock) or a transaction conflict,
    back off with full jitter and run it again from its reads."""
    for attempt in range(MAX_ATTEMPTS):
        try:
            return action()
        except Retry:
            time.sleep(full_jitter(attempt, base=RETRY_BASE_S, cap=RETRY_CAP_S))
    raise Busy(f"{what}: too many concurrent changes to the same items; nothing was written, try again")


class Retry(Exception):
    """Raised by an attempt that lost a race and may simply run again from its reads."""


def request_token() -> str:
    """A ClientRequestToken per attempt: botocore's own retries resend the same request (and token), so a
    commit whose response was lost is applied once. Never derived from content: two staff sending the
    same action must not both be told they succeeded."""
    return uuid.uuid4().hex
