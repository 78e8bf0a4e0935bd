"""The order's state machine (``shop.lifecycle``): one table that the services, the pages and the reads ask; a new
state or action is one row, and what asks it follows."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.template.loader import render_to_string

from dashboard.permissions import Allowed
from shop import audit, order_parts, orders
from shop.errors import OrderConflict
from shop.keys import OrderStatus
from shop.lifecycle import ORDER, Lifecycle, Step
from tests import factories

PENDING, SHIPPED, DELIVERED, CANCELLED = OrderStatus


def with_rows(*rows: Step, base: Lifecycle = ORDER) -> Lifecycle:
    """A copy of ``base`` whose rows of the same action are replaced by ``rows``, and the others added."""
    mine = {row.action: row for row in rows}
    kept = [mine.pop(step.action, step) for step in base.steps]
    return Lifecycle(base.noun, base.conflict, [*kept, *mine.values()])


def test_the_order_table_answers_what_each_status_allows() -> None:
    assert ORDER.states == (PENDING, SHIPPED, DELIVERED, CANCELLED)
    assert ORDER.allowed(PENDING) == ("ship", "ship_part", "edit", "cancel") and ORDER.allowed(SHIPPED) == ("deliver",)
    assert ORDER.allowed(DELIVERED) == ORDER.allowed(None) == ORDER.allowed("ALL") == ()
    assert ORDER.closing_states == (DELIVERED, CANCELLED)
    assert ORDER.reached("ship") == {SHIPPED, DELIVERED} and ORDER.closed_at() == {}
    assert ORDER.require("ship", "7", "PENDING").to == SHIPPED
    with pytest.raises(OrderConflict, match=r"^order 7 is SHIPPED; only a PENDING order can be cancelled$") as no:
        ORDER.require("cancel", "7", "SHIPPED")
    assert (no.value.order_id, no.value.status, no.value.http_status) == ("7", "SHIPPED", 409)
    with pytest.raises(OrderConflict, match=r"^order 7 is unknown; only a SHIPPED order can be delivered$"):
        ORDER.require("deliver", "7", None)


def test_a_new_state_is_one_row_and_the_table_and_the_permissions_follow() -> None:
    held = with_rows(
        Step("hold", (PENDING,), "ON_HOLD", "held", "fulfil"),
        Step("ship", (PENDING, "ON_HOLD"), SHIPPED, "shipped", "fulfil"),
    )
    assert held.states == (PENDING, "ON_HOLD", SHIPPED, DELIVERED, CANCELLED)  # the status lists' tabs
    assert held.allowed(PENDING) == ("ship", "ship_part", "edit", "cancel", "hold") and held.allowed("ON_HOLD") == (
        "ship",
    )
    assert held.closing_states == ORDER.closing_states
    with pytest.raises(OrderConflict, match="only a PENDING or ON_HOLD order can be shipped"):
        held.require("ship", "7", CANCELLED)
    boss = User(username="boss", is_staff=True, is_superuser=True, is_active=True)
    clerk = User(username="clerk", is_staff=True, is_active=True)
    assert Allowed(boss).takes(held, "ON_HOLD") == ["ship"] and Allowed(clerk).takes(held, PENDING) == []


def test_a_changed_row_changes_the_service_and_the_page(shop_table: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Delivering straight from PENDING (collected in the shop) is one row changed: the service takes the step,
    its audit entry says so, and the order page offers the button."""
    factories.shop_with(products=1)
    order = orders.order_place(customer_id="1001", lines=[orders.OrderLine("2001", 1)])
    collected = with_rows(Step("deliver", (PENDING, SHIPPED), DELIVERED, "delivered", "fulfil"))
    page = render_to_string(
        "dashboard/order.html#status",
        {"order": order, "actions": collected.allowed(PENDING), "offered": collected.allowed(PENDING)},
    )
    assert 'class="deliver"' in page and 'class="ship"' in page
    monkeypatch.setattr(orders, "ORDER", collected)  # where the step is taken
    monkeypatch.setattr(order_parts, "ORDER", collected)  # where it is checked
    orders.order_deliver(order_id=order.order_id, actor=audit.Actor("clerk"))
    after = orders.order_collection(order.order_id)
    assert after.order.status == DELIVERED
    assert [(e.action, e.from_status, e.to_status) for e in after.history] == [("deliver", PENDING, DELIVERED)]
    monkeypatch.undo()  # the table as it is: a delivered order is delivered once
    with pytest.raises(OrderConflict, match="only a SHIPPED order can be delivered"):
        orders.order_deliver(order_id=order.order_id)
