from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from adminview.reads import selectors
from shop import orders
from shop.orders import OrderLine, PaymentSpec
from tests import factories
from tests.adminview_helpers import sync_now

T0 = datetime(2026, 1, 1, 12, 0, 0)


def _place(n: int, customer: str, products: list[str]) -> None:
    orders.order_place(
        customer_id=customer,
        lines=[OrderLine(p, 1) for p in products],
        order_id=f"o{n:03d}",
        placed_at=T0 + timedelta(minutes=n),
    )


def test_selectors_page_through_the_view(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=3, products=2)
    for n in range(9):
        _place(n, f"100{1 + n % 3}", ["2001"] if n % 2 else ["2001", "2002"])
    orders.order_place(
        customer_id="1001",
        lines=[OrderLine("2002", 1)],
        order_id="paid",
        placed_at=T0 + timedelta(hours=5),
        payments=[PaymentSpec(type="Card", amount="10.50", transaction_id="txn_abc")],
    )
    orders.order_ship(order_id="o004")
    orders.order_cancel(order_id="o007")
    sync_now()

    seen: list[str] = []
    after = None
    while True:
        page = selectors.pending_orders(limit=3, after=after)
        seen += [r.order_id for r in page.rows]
        if page.next is None:
            break
        after = page.next
    expected = ["paid", "o008", "o006", "o005", "o003", "o002", "o001", "o000"]
    assert seen == expected
    first = selectors.pending_orders(limit=100).rows[0]
    assert first.status == "PENDING" and first.item_count == 1 and first.date == T0 + timedelta(hours=5)

    mine = selectors.customer_orders(customer_id="c#1002", limit=2)
    assert [r.order_id for r in mine.rows] == ["o007", "o004"] and mine.next is not None
    rest = selectors.customer_orders(customer_id="1002", limit=2, after=mine.next)
    assert [r.order_id for r in rest.rows] == ["o001"] and rest.next is None
    assert {r.status for r in mine.rows} == {"CANCELLED", "SHIPPED"}

    buyers = selectors.product_buyers(product_id="2001", limit=2)
    assert [(b.customer_id, b.orders) for b in buyers.rows] == [("1001", 3), ("1002", 2)]
    assert buyers.rows[0].name == "Ada Lovelace" and buyers.rows[0].email == "c1001@example.com"
    more = selectors.product_buyers(product_id="p#2001", limit=2, after=buyers.next)
    assert [(b.customer_id, b.orders) for b in more.rows] == [("1003", 3)] and more.next is None

    assert selectors.order_id_for_transaction(transaction_id="txn_abc") == "paid"
    assert selectors.order_id_for_transaction(transaction_id="nope") is None


@pytest.mark.parametrize("after", [{"before": 3}, {"x": "y"}, "zz", {"before": "no-hash"}])
def test_malformed_positions_are_value_errors(shop_table: str, admin_view_table: str, after: object) -> None:
    with pytest.raises(ValueError):
        selectors.pending_orders(after=after)  # type: ignore[arg-type]


def test_bad_ids_and_limits(shop_table: str, admin_view_table: str) -> None:
    with pytest.raises(ValueError):
        selectors.customer_orders(customer_id="o#1")
    with pytest.raises(ValueError):
        selectors.product_buyers(product_id="2001", limit=0)
    with pytest.raises(ValueError):
        selectors.order_id_for_transaction(transaction_id="")
