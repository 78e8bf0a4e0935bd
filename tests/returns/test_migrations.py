"""``returns.migrations``: what ``refund-customer`` plans for each scanned item (pure: the order's customer is given;
the command's run on DynamoDB Local is in ``tests/dashboard/test_customers.py``)."""

from __future__ import annotations

from returns.migrations import planner_of_refund_customers


def S(value: str) -> dict[str, str]:
    return {"S": value}


def test_a_refund_gets_its_orders_customer_each_order_read_once_and_nothing_without_an_order() -> None:
    # given a planner whose orders 42 (customer 1001) and 43 (gone from the shop) are looked up as asked
    asked: list[str] = []

    def customer_of(order_key: str) -> str | None:
        asked.append(order_key)
        return {"o#42": "1001"}.get(order_key)

    plan = planner_of_refund_customers(customer_of)

    def refund(oid: str, fid: str) -> dict[str, dict[str, str]]:
        return {"PK": S("o#" + oid), "SK": S("f#" + fid), "EntityType": S("refund"), "Amount": S("1.00")}

    # when two refunds of order 42, one of order 43 and an item that is no refund are planned
    first, second = plan(refund("42", "1")), plan(refund("42", "2"))
    gone = plan(refund("43", "1"))
    total = plan({"PK": S("o#42"), "SK": S("REFUNDED"), "EntityType": S("orderRefunds")})

    # then each refund of 42 gets CustomerId 1001 (its order read once), 43's nothing, the total nothing
    assert first is not None and second is not None
    assert first.key == {"PK": S("o#42"), "SK": S("f#1")} and first.add == {"CustomerId": S("1001")}
    assert second.add == {"CustomerId": S("1001")} and not first.create
    assert gone is None and total is None
    assert asked == ["o#42", "o#43"]
