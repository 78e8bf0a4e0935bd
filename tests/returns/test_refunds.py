"""Refunds against DynamoDB Local: within what the order paid less what was refunded, held by the transaction's
condition (not only by the read before it), and a paid order's cancel refunding it in the same transaction."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest

from dynamo.client import client_of
from returns import access_patterns as rap
from returns import refunds, services
from returns.errors import RefundTooLarge, ReturnConflict
from returns.models import ReturnsItem
from shop import orders
from shop.errors import Busy, InvalidInput, OrderConflict
from shop.orders import OrderLine
from tests.returns.conftest import STAFF, delivered, received, requested, stock

pytestmark = pytest.mark.usefixtures("two_customers_two_products")
PAID = Decimal("32.50")  # 2 x 10.50 + 1 x 11.50


def two_received() -> None:
    """Order 5001 (paid 32.50) with return r1 (2 x product 2001) and r2 (1 x product 2002), both received."""
    delivered()
    received(return_id="r1", units=2)
    services.return_request(order_id="5001", lines=[services.Line("2002", 1, "small")], return_id="r2")
    services.return_approve(return_id="r2", actor=STAFF)
    services.return_receive(return_id="r2", warehouse_id="301", actor=STAFF)


def refunded(order_id: str = "5001") -> list[Decimal]:
    return sorted(r.amount for r in rap.refunds_for_order(order_id=order_id, consistent=True).items)


def counted(order_id: str = "5001") -> Decimal | None:
    total = rap.refunded_for_order(order_id=order_id, consistent=True)
    return total.refunded if total else None


def test_a_refund_holds_the_contracts_shape_and_closes_the_return() -> None:
    delivered()
    received()
    services.return_refund(
        return_id="r1", amount="21", reference=" pi_123 ", actor=STAFF, at=datetime(2026, 3, 20, 8, 30)
    )
    found = rap.return_by_id(return_id="r1")
    assert found is not None and found.status == "REFUNDED" and found.refund_id
    (refund,) = rap.refunds_for_order(order_id="5001").items
    stored = refund.attributes_as_read()
    assert stored is not None
    assert (stored["PK"], stored["SK"]) == ({"S": "o#5001"}, {"S": f"f#{found.refund_id}"})
    assert (stored["EntityType"], stored["Amount"], stored["Date"]) == (
        {"S": "refund"},
        {"S": "21.00"},
        {"S": "2026-03-20T08:30:00"},
    )
    assert (stored["Reference"], stored["ReturnId"]) == ({"S": "pi_123"}, {"S": "r1"})
    assert counted() == Decimal("21")
    (entry, *_) = orders.order_collection("5001").history
    assert (entry.action, entry.from_status, entry.to_status, entry.user) == ("refund", "RECEIVED", "REFUNDED", "rita")
    assert entry.detail == "return r1: 21.00 (pi_123)"


@pytest.mark.parametrize("amount", ["0", "-1", "1.234", "abc", "", "NaN", "Infinity", "1e3", "12,50", "1_000"])
def test_a_bad_amount_is_refused(amount: str) -> None:
    delivered()
    received()
    with pytest.raises(InvalidInput):
        services.return_refund(return_id="r1", amount=amount, reference="pi_1", actor=STAFF)
    assert refunded() == [] and counted() is None


@pytest.mark.parametrize("reference", ["", "   ", "a\nb", "x" * 201])
def test_a_bad_reference_is_refused(reference: str) -> None:
    delivered()
    received()
    with pytest.raises(InvalidInput):
        services.return_refund(return_id="r1", amount="1.00", reference=reference, actor=STAFF)


def test_the_exact_remaining_amount_is_accepted_and_one_cent_more_refused() -> None:
    two_received()
    services.return_refund(return_id="r1", amount="20.00", reference="pi_1", actor=STAFF)
    with pytest.raises(RefundTooLarge, match=r"12\.50 left to refund"):
        services.return_refund(return_id="r2", amount="12.51", reference="pi_2", actor=STAFF)
    r2 = rap.return_by_id(return_id="r2")
    assert refunded() == [Decimal("20.00")] and r2 is not None and r2.status == "RECEIVED"
    # r2 came back worth 11.50: the last 1.00 of the order needs an override
    services.return_refund(return_id="r2", amount="12.50", reference="pi_2", override="shipping too", actor=STAFF)
    assert refunded() == [Decimal("12.50"), Decimal("20.00")] and counted() == PAID


def test_a_return_is_refunded_once() -> None:
    delivered()
    received()
    services.return_refund(return_id="r1", amount="5.00", reference="pi_1", actor=STAFF)
    with pytest.raises(ReturnConflict, match="is REFUNDED"):
        services.return_refund(return_id="r1", amount="5.00", reference="pi_1", actor=STAFF)
    assert refunded() == [Decimal("5.00")]


def test_only_an_approved_or_received_return_is_refunded() -> None:
    delivered()
    requested()
    with pytest.raises(ReturnConflict, match="only a APPROVED or RECEIVED return"):
        services.return_refund(return_id="r1", amount="1.00", reference="pi_1", actor=STAFF)
    assert refunded() == []


def test_a_refund_another_service_wrote_counts_against_what_remains() -> None:
    # given a refund of 30.00 another service put straight into the table (no refunded total kept)
    two_received()
    client_of(ReturnsItem).put_item(
        TableName=str(ReturnsItem.Meta.table_name),
        Item={
            "PK": {"S": "o#5001"},
            "SK": {"S": "f#ext1"},
            "EntityType": {"S": "refund"},
            "Amount": {"S": "30.00"},
            "Date": {"S": "2026-03-10T10:00:00"},
            "Reference": {"S": "ext"},
        },
    )
    # then 2.50 remains: more is refused, exactly that is accepted
    with pytest.raises(RefundTooLarge):
        services.return_refund(return_id="r1", amount="2.51", reference="pi_1", actor=STAFF)
    services.return_refund(return_id="r1", amount="2.50", reference="pi_1", actor=STAFF)
    assert sum(refunded()) == PAID


def test_two_refunds_racing_never_exceed_what_was_paid(monkeypatch: pytest.MonkeyPatch) -> None:
    # given two received returns, and two staff refunding 20.00 each at once: both read 32.50 as refundable
    two_received()
    both_read = threading.Barrier(2, timeout=60)  # a guard against a hang only
    real = refunds.refundable
    first_reads: set[int] = set()

    def read_together(order_id: str, invoices: Any = None) -> refunds.Refundable:
        money = real(order_id, invoices)
        if threading.get_ident() not in first_reads:
            first_reads.add(threading.get_ident())
            both_read.wait()
        return money

    monkeypatch.setattr(refunds, "refundable", read_together)

    def refund(rid: str) -> str:
        try:
            services.return_refund(
                return_id=rid, amount="20.00", reference=f"pi_{rid}", override="goodwill", actor=STAFF
            )
        except RefundTooLarge:
            return "refused"
        return "refunded"

    # when both commit
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = sorted(pool.map(refund, ["r1", "r2"]))
    # then one refund landed, the other was refused when its condition saw the first one's sum
    assert outcomes == ["refunded", "refused"]
    assert refunded() == [Decimal("20.00")] and counted() == Decimal("20.00")


# --- cancelling a paid order --------------------------------------------------------------------------------


def pending(order_id: str = "5002") -> str:
    orders.order_place(customer_id="1002", lines=[OrderLine("2001", 3)], order_id=order_id)
    return order_id


def test_cancelling_a_paid_order_refunds_what_it_paid_in_the_same_transaction() -> None:
    oid = pending()
    (txid,) = [p.transaction_id for i in orders.order_collection(oid).invoices for p in i.payments]
    services.order_cancel_with_refund(order_id=oid, actor=STAFF)
    collection = orders.order_collection(oid)
    assert collection.order.status == "CANCELLED" and stock("2001") == 100
    (refund,) = rap.refunds_for_order(order_id=oid).items
    assert (refund.amount, refund.reference) == (Decimal("31.50"), txid) and not refund.return_id
    assert counted(oid) == Decimal("31.50")
    assert sorted(e.action for e in collection.history) == ["cancel", "refund"]
    with pytest.raises(OrderConflict):
        services.order_cancel_with_refund(order_id=oid, actor=STAFF)
    assert len(refunded(oid)) == 1


def test_a_cancel_whose_refund_cannot_be_written_is_not_made(monkeypatch: pytest.MonkeyPatch) -> None:
    # given a pending order whose refunded total says it was refunded in full, while the read says it was not
    oid = pending()
    client_of(ReturnsItem).put_item(
        TableName=str(ReturnsItem.Meta.table_name),
        Item={
            "PK": {"S": "o#5002"},
            "SK": {"S": "REFUNDED"},
            "EntityType": {"S": "orderRefunds"},
            "Refunded": {"N": "31.5"},
        },
    )
    stale = refunds.Refundable(oid, Decimal("31.50"), Decimal(0), Decimal(0), ())
    monkeypatch.setattr(refunds, "refundable", lambda order_id, invoices=None: stale)
    # when it is cancelled, then the refund's condition fails every time and nothing at all is written
    with pytest.raises(Busy):
        services.order_cancel_with_refund(order_id=oid, actor=STAFF)
    collection = orders.order_collection(oid)
    assert collection.order.status == "PENDING" and stock("2001") == 97 and collection.history == []
    assert refunded(oid) == []


def test_cancelling_an_unpaid_or_already_refunded_order_writes_no_refund() -> None:
    oid = pending()
    client_of(ReturnsItem).put_item(
        TableName=str(ReturnsItem.Meta.table_name),
        Item={
            "PK": {"S": "o#5002"},
            "SK": {"S": "f#ext"},
            "EntityType": {"S": "refund"},
            "Amount": {"S": "31.50"},
            "Date": {"S": "2026-03-10T10:00:00"},
            "Reference": {"S": "ext"},
        },
    )
    services.order_cancel_with_refund(order_id=oid, actor=STAFF)
    assert orders.order_collection(oid).order.status == "CANCELLED"
    assert refunded(oid) == [Decimal("31.50")] and counted(oid) is None
