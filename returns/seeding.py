"""Returns and refunds for the seeded shop (see docs/returns.md, "Seeding").

Deterministic for a plan: every choice comes from a generator seeded with the order's id, and ids derive from the
order's (``<order id>-1``), so a second seed of a grown table adds returns of its new orders and overwrites nothing.
Stock is not moved for received returns: the seeded stock is what stands after the seeded history.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal

from dynamo.batch import write_models
from dynamo.ratelimit import TokenBucket
from returns import keys
from returns.keys import ReturnStatus
from returns.models import OrderRefunds, Refund, ReturnItem, ReturnLine, ReturnsItem
from shop.keys import OrderStatus
from shop.seeding import PlannedOrder, SeedPlan, paced

RETURN_SHARE = 0.12  # of the delivered orders
REASONS = tuple(r.value for r in keys.ReturnReason if r is not keys.ReturnReason.OTHER)  # OTHER needs words
REJECTED_BECAUSE = "Outside the return window"


def _id(planned: PlannedOrder) -> str:
    return f"{planned.order_id}-1"


def _return_of(planned: PlannedOrder, status: ReturnStatus, rng: random.Random, latest: datetime) -> list[ReturnsItem]:
    """A return of some units of one or two lines of a delivered order; a refund beside it when refunded."""
    oid, rid = planned.order_id, _id(planned)
    chosen = rng.sample(planned.lines, k=min(len(planned.lines), rng.choice([1, 1, 2])))
    lines = [(line, rng.randint(1, line.quantity)) for line in chosen]
    requested = _after(planned.delivered_at, timedelta(days=rng.randint(1, 20), seconds=rng.randint(0, 86399)), latest)
    item = ReturnItem(
        **keys.return_keys(rid, oid),
        order_id=oid,
        customer_id=planned.customer_id,
        status=status.value,
        requested=requested,
        lines=[
            ReturnLine(product_id=line.product_id, quantity=units, reason=rng.choice(REASONS)) for line, units in lines
        ],
    )
    decided = _after(requested, timedelta(hours=rng.randint(1, 48)), latest)
    if status is ReturnStatus.REJECTED:
        item.reason, item.rejected = REJECTED_BECAUSE, decided
    elif status is not ReturnStatus.REQUESTED:
        item.approved = decided
    if status in (ReturnStatus.RECEIVED, ReturnStatus.REFUNDED):
        item.warehouse_id = chosen[0].warehouse_id
        item.received = _after(decided, timedelta(days=rng.randint(2, 7)), latest)
    if status is not ReturnStatus.REFUNDED:
        return [item]
    item.refund_id = rid
    amount = sum((line.price * units for line, units in lines), Decimal(0))
    item.refunded = _after(item.received, timedelta(days=rng.randint(1, 3)), latest)
    return [item, *_refund(planned, amount, item.refunded, f"rf_{rng.getrandbits(48):012x}", rid)]


def _after(start: datetime, wait: timedelta, latest: datetime) -> datetime:
    """``wait`` after ``start``, or halfway to ``latest`` when that is sooner: each step follows the one before and
    none is later than the seeded history's now."""
    return start + wait if start + wait <= latest else start + (latest - start) / 2


def _refund(planned: PlannedOrder, amount: Decimal, at: datetime, reference: str, rid: str | None) -> list[ReturnsItem]:
    """A refund of ``amount`` and the order's refunded total holding it."""
    refund = Refund(
        **keys.refund_keys(planned.order_id, _id(planned)),
        amount=amount,
        date=at,
        reference=reference,
        return_id=rid,
        customer_id=planned.customer_id,
    )
    return [refund, OrderRefunds(**keys.refunded_keys(planned.order_id), refunded=amount)]


def _cancel_refund(planned: PlannedOrder, rng: random.Random, latest: datetime) -> list[ReturnsItem]:
    paid = sum((Decimal(str(p.amount)) for p in planned.payments), Decimal(0))
    if paid <= 0:
        return []
    cancelled = _after(planned.placed_at, timedelta(hours=rng.randint(1, 72)), latest)
    reference = ", ".join(sorted(p.transaction_id for p in planned.payments if p.transaction_id)) or "order cancelled"
    return _refund(planned, paid, cancelled, reference, None)


def plan_returns(seed_plan: SeedPlan) -> Iterator[ReturnsItem]:
    """Every item to write, in the order of the plan's orders."""
    if not seed_plan.orders:
        return
    latest = seed_plan.until or max(planned.placed_at for planned in seed_plan.orders)
    statuses = list(ReturnStatus)
    made = 0
    for planned in seed_plan.orders:
        rng = random.Random(f"returns-{planned.order_id}")
        if planned.status is OrderStatus.CANCELLED:
            yield from _cancel_refund(planned, rng, latest)
        elif planned.status is OrderStatus.DELIVERED and (made == 0 or rng.random() < RETURN_SHARE):
            yield from _return_of(planned, statuses[made % len(statuses)], rng, latest)
            made += 1


def seed_returns(seed_plan: SeedPlan, *, workers: int, bucket: TokenBucket | None) -> int:
    """``shop.seeding.SeedExtension``: write the returns and refunds of the seeded orders."""
    items = plan_returns(seed_plan)
    return write_models(ReturnsItem, paced(items, bucket) if bucket else items, parallel=workers)
