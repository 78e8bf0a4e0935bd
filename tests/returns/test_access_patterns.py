"""The returns table's named reads against DynamoDB Local."""

from __future__ import annotations

from decimal import Decimal

import pytest

from returns import access_patterns as rap
from returns import services
from tests.returns.conftest import STAFF, delivered, received, requested

pytestmark = pytest.mark.usefixtures("two_customers_two_products")


def test_an_orders_returns_page_through_gsi1() -> None:
    delivered(lines=(("2001", 3),))
    for n in range(3):
        requested(return_id=f"r{n}", units=1)
    first = rap.returns_for_order(order_id="5001", limit=2)
    rest = rap.returns_for_order(order_id="o#5001", limit=2, start_key=first.next_key)
    assert [r.return_id for r in [*first, *rest]] == ["r0", "r1", "r2"] and rest.next_key is None
    assert rap.returns_for_order(order_id="5002").items == []


def test_an_orders_refunds_leave_out_its_refunded_total() -> None:
    delivered()
    received()
    services.return_refund(return_id="r1", amount="3.00", reference="pi", actor=STAFF)
    (refund,) = rap.refunds_for_order(order_id="5001").items
    total = rap.refunded_for_order(order_id="5001")
    assert refund.amount == Decimal("3.00") and total is not None and total.refunded == Decimal(3)
    together, refunds = rap.money_of_order(order_id="5001", consistent=True)  # one Query, both kinds
    assert together is not None and together.refunded == Decimal(3) and [r.amount for r in refunds] == [refund.amount]
    assert rap.money_of_order(order_id="5002") == (None, [])


def test_a_missing_or_foreign_item_reads_as_none() -> None:
    assert rap.return_by_id(return_id="nope") is None
    assert rap.refunded_for_order(order_id="5001") is None
