"""Property: whatever staff do, in the shop and with returns (and another service writing returns and refunds),
however the records of the two streams are mixed and delivered (batches of any size, duplicates, replays of
earlier stretches), wherever the sync crashes (before any one of its DynamoDB write calls), and with rebuilds in
between, the kept numbers end equal to a computation from scratch of both tables, and verify finds nothing."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from adminview.repair import rebuild
from adminview.sync.handler import handler
from adminview.tables import ViewItem
from dynamo.client import client_of
from shop import orders
from shop.errors import ShopError
from shop.orders import OrderLine
from tests import factories
from tests.adminview import order_work
from tests.adminview.figures_oracle import assert_figures_match
from tests.adminview.returns_traffic import Returns, cancel_with_refund, interleaved, with_returns
from tests.adminview.streams import delete_order, new_records

CUSTOMERS = ["1001", "1002"]
PRODUCTS = ["2001", "2002", "2003"]
WRITES = ("PutItem", "BatchWriteItem", "TransactWriteItems", "UpdateItem", "DeleteItem")
_ids = itertools.count()

actions = with_returns(
    st.one_of(
        st.tuples(
            st.just("place"),
            st.sampled_from(CUSTOMERS),
            st.lists(st.sampled_from(PRODUCTS), min_size=1, max_size=3, unique=True),
            st.integers(0, 3),  # day offset
        ),
        st.tuples(st.sampled_from(["ship", "cancel", "deliver", "delete"]), st.integers(0, 7)),
        order_work.ACTIONS,
    ),
    max_size=8,
)
# Per batch: its size, what happens after it (nothing, redelivered, an earlier stretch replayed, a rebuild), and
# before which of its view-table write calls the sync crashes (0: none).
deliveries = st.lists(
    st.tuples(
        st.integers(1, 6),
        st.sampled_from(["none", "duplicate", "replay", "rebuild"]),
        st.integers(0, 1000),
        st.integers(0, 4),
    ),
    min_size=1,
    max_size=12,
)


class Crash(BaseException):
    """The sync process dies here: a BaseException, so no ``except Exception`` of the sync's can carry on."""


@contextmanager
def crash_before_write(number: int) -> Iterator[None]:
    """The ``number``-th write call to the view table (1-based; 0: none) raises before it is sent."""
    if number <= 0:
        yield
        return
    client = client_of(ViewItem)
    seen = [0]

    def before(model: Any, **_: Any) -> None:
        if model.name in WRITES:
            seen[0] += 1
            if seen[0] == number:
                raise Crash(f"crash before view write call {number}")

    client.meta.events.register("before-call.dynamodb", before)
    try:
        yield
    finally:
        client.meta.events.unregister("before-call.dynamodb", before)


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
            oid = f"q{next(_ids)}"
            when = datetime(2026, 5, 1, 9, tzinfo=UTC) + timedelta(days=action[3])
            orders.order_place(
                customer_id=action[1],
                lines=[OrderLine(p, 1 + n) for n, p in enumerate(action[2])],
                order_id=oid,
                placed_at=when,
            )
            placed.append(oid)
            returns.orders.append((oid, action[2][0]))
        elif placed:
            oid = placed[action[1] % len(placed)]
            steps: dict[str, Callable[[], object]] = {
                "ship": lambda: orders.order_ship(order_id=oid),
                "cancel": lambda: cancel_with_refund(oid),  # paid: its refund is written with it
                "deliver": lambda: orders.order_deliver(order_id=oid),
                "delete": lambda: delete_order(oid),
            }
            steps[action[0]]()
    except ShopError:
        pass  # refused by the domain: nothing written


def _apply(batch: list[dict[str, Any]], crash_at: int) -> None:
    """Deliver a batch as Lambda would: after a crash (or reported failures), the same batch again."""
    try:
        with crash_before_write(crash_at):
            handler({"Records": batch})
    except Crash:  # nothing the sync would have done after that point happens
        event("crashed mid-batch")
    assert handler({"Records": batch}) == {"batchItemFailures": []}


def _deliver(
    records: list[dict[str, Any]], plan: list[tuple[int, str, int, int]], history: list[dict[str, Any]]
) -> None:
    if len({r["eventSourceARN"] for r in records}) == 2:
        event("records of both streams in one delivery")
    position = 0
    steps = itertools.cycle(plan)
    while position < len(records):
        size, extra, pick, crash_at = next(steps)
        batch = records[position : position + size]
        _apply(batch, crash_at)
        history += batch
        position += len(batch)
        if extra == "duplicate":
            _apply(batch, 0)
        elif extra == "replay" and history:
            start = pick % len(history)
            _apply(history[start : start + 25], crash_at)
        elif extra == "rebuild":
            rebuild.rebuild()


@pytest.fixture
def three_categories_in_stock(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=2, products=3, stock_each=10_000, categories=["Books", "Garden", None])


@pytest.mark.ddb_local
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=actions, second=actions, plan=deliveries, mix=st.integers(0, 2**16).map(random.Random))
def test_figures_equal_a_count_from_scratch_after_any_delivery(
    three_categories_in_stock: None,
    first: list[tuple[Any, ...]],
    second: list[tuple[Any, ...]],
    plan: list[tuple[int, str, int, int]],
    mix: random.Random,
) -> None:
    placed: list[str] = []
    returns = Returns()
    history: list[dict[str, Any]] = []
    for action in first:
        _act(action, placed, returns)
    _deliver(interleaved(new_records(), mix), plan, history)
    for action in second:
        _act(action, placed, returns)
    _deliver(interleaved(new_records(), mix), plan, history)
    assert_figures_match()
    for start in range(0, len(history), 40):  # the whole history again: nothing changes
        _apply(history[start : start + 40], 0)
    assert_figures_match()
    found = rebuild.verify(settle_s=0)
    assert found.clean, found.summary()
