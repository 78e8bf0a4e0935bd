"""Acting on many orders at once: each shipped, cancelled or delivered as on its own page (``shop.orders``), in its
own transaction, a few at a time, so an order is wholly changed or untouched and one order's refusal or throttling
never stops the others. When DynamoDB does not answer, an order's outcome is unknown, and says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from dynamo.instrumentation import run_in_context
from dynamo.no_answer import DYNAMODB_ERRORS, did_not_answer
from shop import keys, orders, tracking
from shop.audit import Actor
from shop.errors import Busy, InvalidInput, NotFound, OrderConflict, throttled
from shop.lifecycle import ORDER

# each step of ``lifecycle.ORDER`` that may be taken in bulk, with the function that takes it
ACTIONS: dict[str, Callable[..., Any]] = {
    "ship": orders.order_ship,
    "cancel": orders.order_cancel,
    "deliver": orders.order_deliver,
}
WORKERS = 8  # transactions in flight at once
MAX_ORDERS = 200  # per request: a page of a status list is at most this


@dataclass(frozen=True)
class Outcome:
    """What happened to one order: ``code`` 200, 404, 409 (refused: ``message`` says why) or 503 (nothing was
    written, try again; or ``unknown``: DynamoDB did not answer, so the change may or may not have been made)."""

    order_id: str
    code: int
    message: str
    status: str | None = None
    unknown: bool = False

    @property
    def done(self) -> bool:
        return self.code == 200


def _one(
    action: str, order_id: str, actor: Actor | None, extra: Mapping[str, object], change: Callable[..., Any] | None
) -> Outcome:
    change = change or ACTIONS[action]
    new_status = ORDER.step(action).to
    try:
        change(order_id=order_id, actor=actor, **extra)
    except (OrderConflict, NotFound, Busy) as exc:
        return Outcome(order_id, exc.http_status, str(exc), getattr(exc, "status", None))
    except DYNAMODB_ERRORS as exc:
        if throttled(exc):
            return Outcome(order_id, 503, f"order {order_id}: DynamoDB is throttling; nothing was done, try again")
        if not did_not_answer(exc):
            raise
        message = f"DynamoDB did not answer, so order {order_id} may or may not have been {new_status.lower()}"
        return Outcome(order_id, 503, f"{message}: reload it to see", unknown=True)
    return Outcome(order_id, 200, "done", new_status)


def _arguments(
    action: str,
    ids: Sequence[str],
    carrier: str | None,
    tracking_numbers: Mapping[str, str | None],
    reason: str | None,
    warehouse_tracking: Mapping[str, Mapping[str, str | None]],
) -> dict[str, dict[str, object]]:
    """The action's arguments besides the order, per order: a ship's carrier and tracking numbers, a cancel's
    reason. All checked before any order is changed: a bad one refuses the whole request."""
    given = any(tracking_numbers.values()) or any(v for own in warehouse_tracking.values() for v in own.values())
    if action != "ship" and (carrier is not None or given):
        raise InvalidInput("a carrier and tracking numbers go with shipping only")
    if action != "cancel" and reason is not None:
        raise InvalidInput("a reason goes with cancelling only")
    if action != "ship":
        return {oid: {"reason": reason} if reason else {} for oid in ids}
    shared = tracking.reference(carrier, what="carrier")
    numbers = {keys.bare(oid, keys.ORDER): number for oid, number in tracking_numbers.items()}
    by_warehouse = {keys.bare(oid, keys.ORDER): own for oid, own in warehouse_tracking.items()}
    return {
        oid: {
            "carrier": shared,
            "tracking_number": tracking.reference(numbers.get(oid), what=f"tracking number of order {oid}"),
            "warehouse_tracking": {
                wid: tracking.reference(number, what=f"tracking number of order {oid} from warehouse {wid}")
                for wid, number in by_warehouse.get(oid, {}).items()
            },
        }
        for oid in ids
    }


def run(
    action: str,
    order_ids: Sequence[str],
    *,
    actor: Actor | None = None,
    workers: int = WORKERS,
    carrier: str | None = None,
    tracking_numbers: Mapping[str, str | None] | None = None,
    reason: str | None = None,
    change: Callable[..., Any] | None = None,
    warehouse_tracking: Mapping[str, Mapping[str, str | None]] | None = None,
) -> list[Outcome]:
    """Apply ``action`` to each order; outcomes in the order given (duplicates once). Shipping gives every order
    ``carrier`` and its own entry of ``tracking_numbers`` and ``warehouse_tracking`` (as ``order_ship`` takes
    them). ``change`` replaces the action's function (same arguments): a caller's cancel that writes its own items
    in the same transaction."""
    if action not in ACTIONS:
        raise InvalidInput(f"action must be one of {', '.join(ACTIONS)}")
    ids = list(dict.fromkeys(keys.bare(oid, keys.ORDER) for oid in order_ids))
    if not ids:
        raise InvalidInput("select at least one order")
    if len(ids) > MAX_ORDERS:
        raise InvalidInput(f"at most {MAX_ORDERS} orders at once")
    extra = _arguments(action, ids, carrier, tracking_numbers or {}, reason, warehouse_tracking or {})
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(ids)))) as pool:
        return list(pool.map(run_in_context(lambda oid: _one(action, oid, actor, extra[oid], change)), ids))
