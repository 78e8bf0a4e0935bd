"""Seeding returns: a share of delivered orders with a return in every status, paid cancelled orders refunded;
deterministic for a plan."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest

from dynamo.paging import all_items
from returns import access_patterns as rap
from returns import seeding
from returns.keys import ReturnReason, ReturnStatus
from returns.models import OrderRefunds, Refund, ReturnItem
from shop import seeding as shop_seeding
from shop.keys import OrderStatus
from shop.plain import to_plain

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
    latest = max(o.placed_at for o in plan.orders)
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
