"""Independent DynamoDB calls sent side by side, on one pool of threads that lives as long as the process.

A call mostly waits on the network, so threads overlap them. Starting threads for every batch of stream records
or every page would cost more CPU than the calls' own Python work, so the pool is made once (in Lambda, once per
execution environment) and its idle threads are reused. Each job runs in its caller's context (the request's
call log, ``dynamo.instrumentation``).

Only *calls* go here: a job must never itself wait on this pool (it could wait on a thread that waits on it).
Work that fans out again (a scan segment, a stream shard) keeps a pool of its own.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from dynamo.conf import env_number
from dynamo.instrumentation import run_in_context

T = TypeVar("T")
U = TypeVar("U")
THREADS_VARIABLE = "SHOP_ADMIN_DYNAMODB_THREADS"


# Calls in flight at once, per process (on moto's server: 1, see docs/configuration.md, SHOP_ADMIN_DYNAMODB_THREADS).
MAX_THREADS = max(1, env_number(THREADS_VARIABLE, 32))

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=MAX_THREADS, thread_name_prefix="dynamodb-call")
        return _pool


def _forget() -> None:
    """In a forked child the parent's threads do not exist: it starts a pool of its own when it needs one."""
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget)


def submit(fn: Callable[[], T]) -> Future[T]:
    """Run one call on the pool."""
    return _executor().submit(run_in_context(fn))


def map_calls(fn: Callable[[U], T], items: Iterable[U]) -> list[T]:
    """``fn`` over ``items`` side by side, results in order; one item runs in the caller's thread."""
    jobs = list(items)
    if len(jobs) <= 1:
        return [fn(job) for job in jobs]
    return list(_executor().map(run_in_context(fn), jobs))
