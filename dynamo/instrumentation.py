"""Record every DynamoDB call made while serving something (a request, a benchmark step).

Hooks are botocore's own events, registered once per client (``instrument``): each call is timed (retries included)
with what it returned and consumed, and, when a scope asks (``recording(requests=True)``, the explorer), a copy of a
read's parameters. Recording is scoped with a context variable, so concurrent requests never mix their logs; worker
threads join a scope through ``run_in_context``.
"""

from __future__ import annotations

import contextvars
import copy
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

_READ_OPERATIONS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})
_MARK = "_shop_admin_instrumented"
_START = "shop_admin_call_started"
_PARAMS = "shop_admin_params"
_OPERATION = "shop_admin_operation"

T = TypeVar("T")


@dataclass(frozen=True)
class Call:
    service: str
    operation: str
    table: str | None
    index: str | None
    items: int | None
    read_units: float
    write_units: float
    ms: float
    error: str | None = None
    # ``time.perf_counter()`` when the call was sent (None if unknown): lets a reader tell calls that overlapped
    # (parallel threads) from calls made one after another (see ``round_trips``).
    started: float | None = None
    # The API parameters as sent (``client.<operation>(**request)`` repeats the call), ``ReturnConsumedCapacity``
    # included; kept for reads only (writes can be large) and only when a scope asked (a copy of every page's keys
    # costs CPU for nothing), None otherwise.
    request: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def ended(self) -> float | None:
        return None if self.started is None else self.started + self.ms / 1000.0


@dataclass
class CallLog:
    calls: list[Call] = field(default_factory=list)
    requests: bool = False  # keep each read's parameters (``Call.request``)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)

    @property
    def count(self) -> int:
        return len(self.calls)

    @property
    def read_units(self) -> float:
        return sum(c.read_units for c in self.calls)

    @property
    def write_units(self) -> float:
        return sum(c.write_units for c in self.calls)

    @property
    def ms(self) -> float:
        return sum(c.ms for c in self.calls)

    @property
    def round_trips(self) -> int:
        """Sequential round trips: calls whose time spans overlap (made in parallel) count once (the [started,
        ended] intervals merged, the groups counted); calls without a start time count one each."""
        timed = sorted((c.started, c.ended) for c in self.calls if c.started is not None and c.ended is not None)
        groups = sum(1 for c in self.calls if c.started is None)
        end: float | None = None
        for start, stop in timed:
            if end is None or start > end:
                groups += 1
                end = stop
            else:
                end = max(end, stop)
        return groups

    def by_operation(self) -> dict[str, int]:
        return dict(Counter(c.operation for c in self.calls))


_current: contextvars.ContextVar[tuple[CallLog, ...]] = contextvars.ContextVar("dynamodb_call_logs", default=())


@contextmanager
def recording(*, requests: bool = False) -> Iterator[CallLog]:
    """Collect the calls made inside the block (nested blocks each see their own and their children's); with
    ``requests``, each read's parameters too."""
    log = CallLog(requests=requests)
    token = _current.set((*_current.get(), log))
    try:
        yield log
    finally:
        _current.reset(token)


def run_in_context(fn: Callable[..., T]) -> Callable[..., T]:
    """Wrap ``fn`` so a worker thread records into the caller's logs (executors do not copy contextvars)."""
    ctx = contextvars.copy_context()

    def wrapper(*args: Any, **kwargs: Any) -> T:
        return ctx.copy().run(fn, *args, **kwargs)

    return wrapper


def _capacity(consumed: Any, *, is_read: bool) -> tuple[float, float, str | None]:
    """(read units, write units, first table) from a ConsumedCapacity entry or list of entries."""
    entries = consumed if isinstance(consumed, list) else [consumed] if consumed else []
    units = sum(float(entry.get("CapacityUnits", 0.0)) for entry in entries)
    table = next((entry["TableName"] for entry in entries if entry.get("TableName")), None)
    return (units, 0.0, table) if is_read else (0.0, units, table)


def _before_parameter_build(params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
    """Keeps the request's parameters for the record; asks for the units only inside ``recording`` (elsewhere, the
    sync, no one reads them, and parsing them costs CPU) and of the operations whose input, in botocore's model of
    the service, takes them."""
    context[_PARAMS], context[_OPERATION] = params, model.name
    if _current.get() and "ReturnConsumedCapacity" not in params:
        accepted = model.input_shape.members if model.input_shape is not None else {}
        if "ReturnConsumedCapacity" in accepted:
            params["ReturnConsumedCapacity"] = "TOTAL"


def _before_call(context: dict[str, Any], **_: Any) -> None:
    context[_START] = time.perf_counter()


def _record(service: str, operation: str, context: dict[str, Any], parsed: dict[str, Any], error: str | None) -> None:
    """The call as the hooks saw it (``context``: what the earlier ones kept), added to every log recording."""
    logs = _current.get()
    if not logs:
        return
    params, started = context.get(_PARAMS, {}), context.get(_START)
    kept = params and operation in _READ_OPERATIONS and any(log.requests for log in logs)
    read, write, table = _capacity(parsed.get("ConsumedCapacity"), is_read=operation in _READ_OPERATIONS)
    table = table or params.get("TableName")
    if table is None and isinstance(params.get("RequestItems"), dict):
        table = ",".join(params["RequestItems"])
    items = parsed.get("Count")
    if items is None and "Item" in parsed:
        items = 1
    elif items is None and "Responses" in parsed:
        responses = parsed["Responses"]
        items = sum(len(v) for v in responses.values()) if isinstance(responses, dict) else len(responses)
    elif items is None and "Records" in parsed:
        items = len(parsed["Records"])
    call = Call(
        service=service,
        operation=operation,
        table=table,
        index=params.get("IndexName"),
        items=items,
        read_units=read,
        write_units=write,
        ms=(time.perf_counter() - started) * 1000.0 if started else 0.0,
        error=error,
        started=started,
        request=copy.deepcopy(params) if kept else None,
    )
    for log in logs:
        log.add(call)


def instrument(client: Any) -> Any:
    """Register the hooks on a botocore client once; returns the client."""
    if getattr(client, _MARK, False):
        return client
    events = client.meta.events
    service = client.meta.service_model.service_id.hyphenize()
    events.register(f"before-parameter-build.{service}", _before_parameter_build)
    events.register(f"before-call.{service}", _before_call)

    def after_call(parsed: dict[str, Any], model: Any, context: dict[str, Any], **kw: Any) -> None:
        _record(service, model.name, context, parsed, (parsed.get("Error") or {}).get("Code"))

    def after_error(exception: Exception, context: dict[str, Any], **kw: Any) -> None:
        _record(service, context.get(_OPERATION, "?"), context, {}, type(exception).__name__)

    events.register(f"after-call.{service}", after_call)
    events.register(f"after-call-error.{service}", after_error)
    setattr(client, _MARK, True)
    return client
