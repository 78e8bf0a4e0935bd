"""Property: whatever domain writes happen, in the shop and returns tables (staff through the services, another
service with plain writes), feeding their stream records through the handler, each stream in order and the two
mixed, with duplicates and with replays of earlier records, leaves the view equal to a rebuild from both tables;
each status list then holds exactly the shop table's orders of that status, each returns list exactly the returns
table's returns of that status, the activity list exactly the audit entries, and the numbers equal a count from
scratch."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from adminview.reads import activity as staff_activity
from adminview.reads import returns_reads, selectors
from adminview.repair import rebuild
from adminview.sync.handler import handler
from returns.keys import ReturnStatus
from returns.models import ReturnItem
from shop import orders
from shop.audit import Actor
from shop.errors import ShopError
from shop.models import AuditEntry, Order, ShopItem
from shop.orders import OrderLine
from tests import factories
from tests.adminview import order_work
from tests.adminview.figures_oracle import assert_figures_match
from tests.adminview.returns_traffic import Returns, cancel_with_refund, interleaved, with_returns
from tests.adminview.streams import delete_order, new_records

CUSTOMERS = ["1001", "1002", "1003"]
PRODUCTS = ["2001", "2002", "2003"]
_ids = itertools.count()
STAFF = [Actor("ann", "r1"), Actor("bob", "r2")]

actions = with_returns(
    st.one_of(
        st.tuples(
            st.just("place"),
            st.sampled_from(CUSTOMERS),
            st.lists(st.sampled_from(PRODUCTS), min_size=1, max_size=3, unique=True),
        ),
        st.tuples(st.sampled_from(["ship", "cancel", "delete", "deliver"]), st.integers(0, 7)),
        order_work.ACTIONS,
    ),
    max_size=10,
)
# How records are delivered: batch sizes, and after each batch whether to redeliver it (duplicates, as Lambda
# does after a failure) or to replay an earlier stretch of the stream.
deliveries = st.lists(
    st.tuples(st.integers(1, 6), st.sampled_from(["none", "duplicate", "replay"]), st.integers(0, 1000)),
    min_size=1,
    max_size=20,
)


def _act(action: tuple[Any, ...], placed: list[str], returns: Returns) -> None:
    try:
        if action[0] in ("return", "move", "service", "service-move"):
            returns.act(action)
        elif action[0] == "staff":
            created = order_work.act_on(action, placed)
            if created:
                placed.append(created)
                returns.orders.append((created, order_work.PRODUCTS[0]))
        elif action[0] == "place":
            oid = f"h{next(_ids)}"
            orders.order_place(customer_id=action[1], lines=[OrderLine(p, 1) for p in action[2]], order_id=oid)
            placed.append(oid)
            returns.orders.append((oid, action[2][0]))
        elif placed:
            oid = placed[action[1] % len(placed)]
            actor = STAFF[action[1] % len(STAFF)]
            steps: dict[str, Callable[[], object]] = {
                "ship": lambda: orders.order_ship(order_id=oid, actor=actor),
                "cancel": lambda: cancel_with_refund(oid, actor=actor),  # paid: its refund is written with it
                "deliver": lambda: orders.order_deliver(order_id=oid, actor=actor),
                "delete": lambda: delete_order(oid),
            }
            steps[action[0]]()
    except ShopError:
        pass  # e.g. shipping a cancelled or deleted order: the domain refuses, nothing is written


def _deliver(records: list[dict[str, Any]], plan: list[tuple[int, str, int]], history: list[dict[str, Any]]) -> None:
    if len({r["eventSourceARN"] for r in records}) == 2:
        event("records of both streams in one delivery")
    position = 0
    steps = itertools.cycle(plan)
    while position < len(records):
        size, extra, pick = next(steps)
        batch = records[position : position + size]
        assert handler({"Records": batch}) == {"batchItemFailures": []}
        history += batch
        position += len(batch)
        if extra == "duplicate":
            assert handler({"Records": batch}) == {"batchItemFailures": []}
        elif extra == "replay" and history:
            start = pick % len(history)
            assert handler({"Records": history[start : start + 25]}) == {"batchItemFailures": []}


@pytest.fixture
def three_products_in_stock(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=3, products=3, stock_each=10_000)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=actions, second=actions, plan=deliveries, mix=st.integers(0, 2**16).map(random.Random))
def test_view_equals_rebuild_after_any_history(
    three_products_in_stock: None,
    first: list[tuple[Any, ...]],
    second: list[tuple[Any, ...]],
    plan: list[tuple[int, str, int]],
    mix: random.Random,
) -> None:
    placed: list[str] = []
    returns = Returns(actor=STAFF[1])
    history: list[dict[str, Any]] = []
    for action in first:
        _act(action, placed, returns)
    _deliver(interleaved(new_records(), mix), plan, history)
    for action in second:  # a second round of writes, delivered after the first was (partly) replayed
        _act(action, placed, returns)
    _deliver(interleaved(new_records(), mix), plan, history)
    found = rebuild.verify()
    assert found.clean, found.summary()
    _assert_lists_match_the_shop()
    _assert_returns_lists_match_the_returns_table()
    assert_figures_match()
    # replaying everything seen so far changes nothing
    for start in range(0, len(history), 50):
        assert handler({"Records": history[start : start + 50]}) == {"batchItemFailures": []}
    assert rebuild.verify().clean


def _every(fetch: Any, **kwargs: Any) -> list[Any]:
    rows, after = [], None
    while True:
        page = fetch(limit=3, after=after, **kwargs)  # small pages: the paging across shards is exercised too
        rows += page.rows
        if page.next is None:
            return rows
        after = page.next


def _assert_lists_match_the_shop() -> None:
    shop = list(ShopItem.scan())  # the test's oracle, never a request path
    for status in ("PENDING", "SHIPPED", "CANCELLED"):
        listed = [r.order_id for r in _every(selectors.orders_by_status, status=status)]
        expected = {i.order_id for i in shop if isinstance(i, Order) and i.status == status}
        assert len(listed) == len(set(listed)) and set(listed) == expected, status
    entries = sorted((i for i in shop if isinstance(i, AuditEntry)), key=lambda e: e.sk, reverse=True)
    activity = _every(staff_activity.activity)
    assert [(r.order_id, r.action, r.user) for r in activity] == [(e.order_id, e.action, e.user) for e in entries]
    for actor in STAFF:
        mine = [(r.order_id, r.action) for r in _every(staff_activity.activity, user=actor.username)]
        assert mine == [(e.order_id, e.action) for e in entries if e.user == actor.username]


def _assert_returns_lists_match_the_returns_table() -> None:
    kept = list(ReturnItem.scan())  # the test's oracle, never a request path
    for status in ReturnStatus:
        listed = [r.return_id for r in _every(returns_reads.returns, status=status)]
        expected = {r.return_id for r in kept if r.status == status}
        assert len(listed) == len(set(listed)) and set(listed) == expected, status
