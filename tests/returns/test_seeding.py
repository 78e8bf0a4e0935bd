"""Seeding returns: a share of delivered orders with a return in every status, paid cancelled orders refunded;
deterministic for a plan."""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import datetime
from decimal import Decimal

import pytest

from dynamo.paging import all_items
from returns import access_patterns as rap
from returns import seeding
from returns.keys import ReturnReason, ReturnStatus
from returns.models import OrderRefunds, Refund, ReturnItem
from shop import seeding as shop_seeding
from shop.keys import OrderStatus
from tests.factories import to_plain

CONFIG = shop_seeding.SeedConfig(customers=40, products=20, warehouses=2, orders=400, seed=5)


def test_the_same_plan_gives_the_same_returns() -> None:
    plan = shop_seeding.plan(CONFIG)
    assert [to_plain(i) for i in seeding.plan_returns(plan)] == [to_plain(i) for i in seeding.plan_returns(plan)]


def test_shares_and_shapes() -> None:
    plan = shop_seeding.plan(CONFIG)
    by_order = {o.order_id: o for o in plan.orders}
    items = list(seeding.plan_returns(plan))
    returns = [i for i in items if isinstance(i, ReturnItem)]
    delivered = [o for o in plan.orders if o.status is OrderStatus.DELIVERED]
    assert 0.05 * len(delivered) <= len(returns) <= 0.2 * len(delivered)
    assert all(by_order[r.order_id].status is OrderStatus.DELIVERED for r in returns)
    statuses = Counter(r.status for r in returns)
    assert set(statuses) == {s.value for s in ReturnStatus} and max(statuses.values()) - min(statuses.values()) <= 1
    latest = plan.until
    assert latest is not None
    for found in returns:
        ordered = {line.product_id: line.quantity for line in by_order[found.order_id].lines}
        assert all(0 < line.quantity <= ordered[line.product_id] for line in found.lines)
        assert by_order[found.order_id].placed_at < found.requested <= latest
        assert all(line.reason in set(ReturnReason) - {ReturnReason.OTHER} for line in found.lines)
    refunds = [i for i in items if isinstance(i, Refund)]
    cancelled = [o for o in plan.orders if o.status is OrderStatus.CANCELLED]
    assert len(refunds) == len(cancelled) + statuses[ReturnStatus.REFUNDED.value]
    totals = {t.pk: t.refunded for t in items if isinstance(t, OrderRefunds)}
    for refund in refunds:
        assert totals[refund.pk] == refund.amount
        if refund.return_id is None:
            paid = sum((Decimal(str(p.amount)) for p in by_order[refund.order_id].payments), Decimal(0))
            assert refund.amount == paid


@pytest.mark.parametrize("days", [None, 90])
def test_every_return_and_refund_follows_what_it_undoes_and_none_is_after_now(days: int | None) -> None:
    # given the returns of a plan up to a moment (the demo's: now)
    until = datetime(2026, 12, 2, 9, 30)
    plan = shop_seeding.plan(dataclasses.replace(CONFIG, orders=1000, until=until, days=days))
    by_order = {o.order_id: o for o in plan.orders}
    items = list(seeding.plan_returns(plan))
    returns = {i.return_id: i for i in items if isinstance(i, ReturnItem)}
    # then each return was asked for after its order arrived, and its steps came in turn, none after now
    for found in returns.values():
        steps = [found.approved or found.rejected, found.received, found.refunded]
        times = [by_order[found.order_id].delivered_at, found.requested, *(t for t in steps if t is not None)]
        assert times == sorted(times) and len(set(times)) == len(times) and times[-1] <= until, found.return_id
    # and each refund follows the payment it returns (placed), and a return's its shipment and the return
    for refund in (i for i in items if isinstance(i, Refund)):
        planned = by_order[refund.order_id]
        assert planned.placed_at < refund.date <= until
        if refund.return_id is not None:
            shipped = planned.placed_at + planned.shipped_after
            assert shipped < returns[refund.return_id].requested < refund.date


@pytest.mark.usefixtures("shop_table")
def test_seed_returns_writes_the_plan_readable_by_the_access_patterns() -> None:
    plan = shop_seeding.plan(shop_seeding.SeedConfig(customers=10, products=5, warehouses=1, orders=80, seed=3))
    written = seeding.seed_returns(plan, workers=2, bucket=None)
    planned = list(seeding.plan_returns(plan))
    assert written == len(planned)
    some = next(i for i in planned if isinstance(i, ReturnItem))
    assert [r.return_id for r in rap.returns_for_order(order_id=some.order_id).items] == [some.return_id]
    refund = next(i for i in planned if isinstance(i, Refund))
    assert [r.amount for r in all_items(rap.refunds_for_order, order_id=refund.order_id)] == [refund.amount]
