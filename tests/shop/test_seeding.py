"""Seeding: deterministic per seed, realistic shape, readable through the access patterns."""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import date, datetime
from typing import Any

import pytest

from dynamo.client import client_of
from dynamo.paging import raw_items
from dynamo.ratelimit import TokenBucket
from shop import access_patterns as ap
from shop import seed_ids, seeding
from shop.keys import OrderStatus
from shop.models import Order, Shipment, ShopItem
from tests.factories import to_plain

CONFIG = seeding.SeedConfig(customers=50, products=30, warehouses=3, orders=400, seed=11)


def flatten(plan: seeding.SeedPlan) -> list[dict[str, Any]]:
    items = [to_plain(i) for i in plan.catalog]
    for order in plan.orders:
        items += [to_plain(i) for i in seeding.order_history(order, plan.addresses.get(order.customer_id))]
    return items


def test_same_seed_same_data_other_seed_other_data() -> None:
    assert flatten(seeding.plan(CONFIG)) == flatten(seeding.plan(CONFIG))
    other = seeding.SeedConfig(**{**CONFIG.__dict__, "seed": 12})
    assert flatten(seeding.plan(other)) != flatten(seeding.plan(CONFIG))


def test_realistic_shape() -> None:
    plan = seeding.plan(CONFIG)
    statuses = Counter(o.status for o in plan.orders)
    assert statuses[OrderStatus.PENDING] >= 0.08 * len(plan.orders)
    assert all(statuses[s] for s in OrderStatus)
    per_customer = Counter(o.customer_id for o in plan.orders).most_common()
    assert per_customer[0][1] >= 5 * (len(plan.orders) / CONFIG.customers)  # a long tail: some buy a lot
    dates = sorted(o.placed_at for o in plan.orders)
    assert (dates[-1] - dates[0]).days > 365
    pending = [o.placed_at for o in plan.orders if o.status is OrderStatus.PENDING]
    assert (max(dates) - min(pending)).days <= 15  # pending orders are recent


def test_a_span_of_days_spreads_the_orders_over_it_weekdays_busier_than_weekends() -> None:
    # given orders spread over the 91 days before Monday 2 November 2026 (13 weeks: 13 of each weekday)
    until = date(2026, 11, 2)
    plan = seeding.plan(dataclasses.replace(CONFIG, orders=3000, until=until, days=91))
    dates = [o.placed_at for o in plan.orders]
    # then every order is in those days, pending ones recent as before
    assert min(dates) >= datetime(2026, 8, 3) and max(dates) < datetime(2026, 11, 2)
    pending = [o.placed_at for o in plan.orders if o.status is OrderStatus.PENDING]
    assert min(pending) >= datetime(2026, 10, 19)
    # and a weekday of the older orders (no status of their own age) holds more than a weekend day
    old = Counter(d.weekday() for d in dates if d < datetime(2026, 10, 3))
    assert min(old[day] for day in range(5)) > 1.3 * max(old[5], old[6])


def test_a_share_of_orders_is_planned_as_before_categories_and_nothing_else_changes() -> None:
    plain, older = seeding.plan(CONFIG), seeding.plan(dataclasses.replace(CONFIG, uncategorized=0.25))
    without = [o for o in older.orders if all(line.category is None for line in o.lines)]
    assert len(without) == len(older.orders) // 4 and all(line.category for line in plain.orders[0].lines)
    for before, after in zip(plain.orders, older.orders, strict=True):
        lines = tuple(dataclasses.replace(line, category=None) for line in before.lines)
        assert after in (before, dataclasses.replace(before, lines=lines))
    assert flatten(plain)[: len(plain.catalog)] == flatten(older)[: len(older.catalog)]


def test_bad_config() -> None:
    with pytest.raises(ValueError):
        seeding.plan(seeding.SeedConfig(customers=-1, products=1, warehouses=1, orders=1))
    with pytest.raises(ValueError):
        seeding.plan(dataclasses.replace(CONFIG, uncategorized=1.5))
    with pytest.raises(ValueError):
        seeding.plan(seeding.SeedConfig(customers=0, products=1, warehouses=1, orders=1))
    with pytest.raises(ValueError):
        seeding.plan(dataclasses.replace(CONFIG, days=0))


def test_seeded_data_serves_the_patterns(shop_table: str) -> None:
    # CONFIG's catalogue with a quarter of its orders: every kind of item, each worker several BatchWrites
    plan = seeding.plan(dataclasses.replace(CONFIG, orders=CONFIG.orders // 4))
    written = seeding.run(plan, workers=4)
    assert written == len(flatten(plan))
    shipped = next(o for o in plan.orders if o.status is OrderStatus.DELIVERED)
    collection = ap.order_details(order_id=shipped.order_id).items
    assert {type(i).__name__ for i in collection} >= {"Order", "OrderItem", "Invoice", "Shipment", "ShipmentItem"}
    invoice = ap.invoice_by_id(invoice_id=shipped.order_id)
    assert invoice is not None and invoice.amount == sum(p.amount for p in invoice.payments)


def _table_items(table: str) -> dict[tuple[str, str], dict[str, Any]]:
    return {(i["PK"]["S"], i["SK"]["S"]): i for i in raw_items(client_of(ShopItem), "scan", TableName=table)}


def test_seeding_again_adds_after_the_highest_ids_and_overwrites_nothing(shop_table: str) -> None:
    small = seeding.SeedConfig(customers=5, products=4, warehouses=2, orders=20, seed=1)
    assert seed_ids.next_ids() == seed_ids.FirstIds()  # an empty table starts at the fixed firsts
    first = seeding.plan(small, seed_ids.next_ids())
    seeding.run(first, workers=2)
    before = _table_items(shop_table)

    grown = seed_ids.next_ids()
    assert grown == seed_ids.FirstIds(
        customer=seed_ids.FIRST_CUSTOMER + 5,
        product=seed_ids.FIRST_PRODUCT + 4,
        warehouse=seed_ids.FIRST_WAREHOUSE + 2,
        order=seed_ids.FIRST_ORDER + 20,
    )
    second = seeding.plan(dataclasses.replace(small, seed=2), grown)
    seeding.run(second, workers=2)
    after = _table_items(shop_table)

    assert {(i["PK"], i["SK"]) for i in flatten(first) + flatten(second)} == set(after)  # the union of both
    assert len(after) == len(flatten(first)) + len(flatten(second))
    assert all(after[key] == item for key, item in before.items())  # no item of the first run was touched
    assert seeding.plan(dataclasses.replace(small, seed=2), grown).orders == second.orders  # still deterministic


def test_a_plan_until_a_moment_places_its_newest_orders_that_day_and_none_after() -> None:
    # given a plan up to 15:00 on a day, rather than up to a day's midnight
    until = datetime(2030, 5, 17, 15, 0)
    plan = seeding.plan(dataclasses.replace(CONFIG, until=until))
    placed = [o.placed_at for o in plan.orders]
    # then its newest orders are of that day, none later than the moment
    assert max(placed) <= until and any(p.date() == until.date() for p in placed)
    # and a plan until a date still ends before that date's midnight, as before
    assert max(o.placed_at for o in seeding.plan(dataclasses.replace(CONFIG, until=date(2030, 5, 17))).orders) < (
        datetime(2030, 5, 17)
    )


@pytest.mark.parametrize("days", [None, 90])
def test_nothing_in_a_plan_happens_after_its_now(days: int | None) -> None:
    # given a plan up to a moment (the demo's: now)
    until = datetime(2026, 12, 2, 9, 30)
    plan = seeding.plan(dataclasses.replace(CONFIG, orders=800, until=until, days=days))
    assert plan.until == until
    for planned in plan.orders:
        history = seeding.order_history(planned, plan.addresses.get(planned.customer_id))
        order = history[0]
        assert isinstance(order, Order)
        shipments = [i for i in history if isinstance(i, Shipment)]
        # then every order was placed, and every shipment left, before it; each shipment after its order
        assert planned.placed_at < until and all(planned.placed_at < s.date <= until for s in shipments)
        # and a delivered order arrived by then: its delivery date is not in the future
        if planned.status is OrderStatus.DELIVERED:
            assert shipments and planned.delivered_at <= until and str(order.delivery_date) <= until.date().isoformat()


class FakeClock:
    """Time that passes only when slept, at least a microsecond a sleep (as a real sleep takes)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 1e-6)


def test_paced_hands_out_items_no_faster_than_the_rate_after_a_one_second_burst() -> None:
    # given a bucket of 10 items a second on a fake clock
    clock = FakeClock()
    bucket = TokenBucket(10, clock=clock, sleep=clock.sleep)
    # when 100 items are handed out
    handed = list(seeding.paced(range(100), bucket))
    # then all of them, in order, after about 9 s: the first second's 10 at once, then 10 a second
    assert handed == list(range(100))
    assert 8.9 <= clock.now <= 9.1


def test_paced_without_a_burst_never_hands_out_more_than_the_rate_in_any_second() -> None:
    # given a bucket of 10 items a second with no burst, on a fake clock
    clock = FakeClock()
    bucket = TokenBucket(10, burst_s=0, clock=clock, sleep=clock.sleep)
    # when 100 items are handed out, each noting when
    handed_at = [clock.now for _ in seeding.paced(range(100), bucket)]
    # then no second holds more than 10 of them, from the very first one on
    assert max(sum(1 for t in handed_at if start <= t < start + 1) for start in handed_at) <= 10
    assert 9.8 <= clock.now <= 10.1
