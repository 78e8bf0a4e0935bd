"""How fresh the admin view is, for the pages that read it: one cheap read, cached briefly per process.

The heartbeats are one Query of a tiny partition of the sync table (``adminview.sync_status``); caching the
answer for ``CACHE_S`` keeps a busy dashboard at no more than one such Query per second per process, and
every page at most one extra DynamoDB call.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from botocore.exceptions import BotoCoreError, ClientError
from pynamodb.exceptions import PynamoDBException

from adminview.sync_status import Freshness, freshness
from dynamo.no_answer import did_not_answer

log = logging.getLogger(__name__)
CACHE_S = 1.0
clock: Callable[[], float] = time.monotonic
_lock = threading.Lock()
_cached: list[tuple[float, Freshness | None]] = []


def _read() -> Freshness | None:
    """None when the sync's state cannot be read (the page still renders, saying so). When DynamoDB does not answer
    the error goes on: the page's own reads would not be answered either, and it answers 503 at once rather than
    after waiting for them too."""
    try:
        return freshness()
    except (ClientError, BotoCoreError, PynamoDBException) as exc:
        if did_not_answer(exc):
            raise
        log.warning("sync freshness unavailable: %s", exc)
        return None


def current() -> Freshness | None:
    with _lock:
        if _cached and clock() - _cached[0][0] < CACHE_S:
            return _cached[0][1]
    value = _read()
    with _lock:
        _cached[:] = [(clock(), value)]
    return value


def reset() -> None:
    with _lock:
        _cached.clear()
