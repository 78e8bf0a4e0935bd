"""Returns per line against DynamoDB Local: staff-created returns with coded reasons, receipts that say per line
what came back and what went back in stock (the rest damaged), refunds bounded by what came back unless
overridden, and the time of each step kept on the return."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import pytest

from returns import access_patterns as rap
from returns import refunds, services
from returns.errors import RefundAboveReturned, RefundTooLarge, ReturnConflict
from returns.keys import ReturnReason, reason_words
from returns.models import ReturnItem
from returns.services import Count, Line
from shop import orders
from shop.errors import InvalidInput, OrderConflict
from shop.orders import OrderLine
from tests.returns.conftest import STAFF, delivered, stock

pytestmark = pytest.mark.usefixtures("two_customers_two_products")


def made(return_id: str = "r1", *lines: Line) -> ReturnItem:
    """A staff-created return of order 5001 (delivered): 2 x 2001 (damaged) and 1 x 2002 unless ``lines``."""
    wanted = lines or (Line("2001", 2, "DAMAGED"), Line("2002", 1, "OTHER", "gift, duplicate"))
    return services.return_create(order_id="5001", lines=list(wanted), return_id=return_id, actor=STAFF)


def read(return_id: str = "r1") -> ReturnItem:
    found = rap.return_by_id(return_id=return_id, consistent=True)
    assert found is not None
    return found


def test_a_created_return_is_approved_with_coded_reasons_and_audited() -> None:
    delivered()
    made()
    found = read()
    stored = found.attributes_as_read()
    assert stored is not None and stored["Status"] == {"S": "APPROVED"}
    assert stored["Approved"] == stored["Requested"]
    assert stored["Lines"] == {
        "L": [
            {"M": {"ProductId": {"S": "2001"}, "Quantity": {"S": "2"}, "Reason": {"S": "DAMAGED"}}},
            {
                "M": {
                    "ProductId": {"S": "2002"},
                    "Quantity": {"S": "1"},
                    "Reason": {"S": "OTHER"},
                    "ReasonText": {"S": "gift, duplicate"},
                }
            },
        ]
    }
    assert [line.reason_words for line in found.lines] == ["Arrived damaged", "Other: gift, duplicate"]
    (entry, *_) = orders.order_collection("5001").history
    assert (entry.action, entry.to_status, entry.detail, entry.user) == (
        "return-create",
        "APPROVED",
        "return r1",
        "rita",
    )


def test_an_older_free_text_reason_still_reads_as_it_is() -> None:
    assert reason_words("Does not fit") == "Does not fit" and reason_words("SIZE") == ReturnReason.SIZE.label


@pytest.mark.parametrize(
    "lines",
    [
        [Line("2001", 1, "Arrived damaged")],  # free text: not a code
        [Line("2001", 1, "OTHER")],  # OTHER without its words
        [Line("2001", 3, "SIZE")],  # more than delivered
        [Line("2001", 0, "SIZE")],
    ],
)
def test_a_bad_created_return_is_refused_and_writes_nothing(lines: list[Line]) -> None:
    delivered()
    with pytest.raises(InvalidInput):
        services.return_create(order_id="5001", lines=lines, return_id="r1", actor=STAFF)
    assert rap.return_by_id(return_id="r1") is None


def test_units_already_in_a_return_are_not_returnable_again_and_only_a_delivered_order_is_returned() -> None:
    delivered()
    made("r1", Line("2001", 1, "SIZE"))
    with pytest.raises(InvalidInput, match="only 1 of product 2001"):
        made("r2", Line("2001", 2, "SIZE"))
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="5002")
    with pytest.raises(OrderConflict):
        services.return_create(order_id="5002", lines=[Line("2001", 1, "SIZE")], actor=STAFF)


# --- receiving per line --------------------------------------------------------------------------------------


def test_receive_per_line_restocks_what_is_sellable_and_records_the_rest_as_damaged() -> None:
    delivered()  # takes 2 x 2001 and 1 x 2002 from warehouse 301: 98 and 99 left
    made()
    counts = {"2001": Count(received=2, restocked=1)}
    services.return_receive(return_id="r1", warehouse_id="301", counts=counts, actor=STAFF)
    found = read()
    stored = found.attributes_as_read()
    assert stored is not None and stored["Status"] == {"S": "RECEIVED"} and "Received" in stored
    lines = stored["Lines"]["L"]
    assert [(m["M"]["Received"], m["M"]["Restocked"]) for m in lines] == [
        ({"S": "2"}, {"S": "1"}),
        ({"S": "1"}, {"S": "1"}),  # absent: all of it came back and went back in stock
    ]
    assert [line.damaged for line in found.lines] == [1, 0]
    assert (stock("2001"), stock("2002")) == (99, 100)
    (entry, *_) = orders.order_collection("5001").history
    assert entry.detail == "return r1: into warehouse 301, 1 damaged"


@pytest.mark.parametrize(
    "counts",
    [
        {"2001": Count(received=1, restocked=2)},  # restocked above received
        {"2001": Count(received=3)},  # received above the line's quantity
        {"2001": Count(received=-1)},
        {"2001": Count(restocked=3)},
        {"2003": Count(received=1)},  # not in the return
    ],
)
def test_bad_counts_are_refused_and_change_nothing(counts: dict[str, Count]) -> None:
    delivered()
    made()
    with pytest.raises(InvalidInput):
        services.return_receive(return_id="r1", warehouse_id="301", counts=counts, actor=STAFF)
    assert read().status == "APPROVED" and (stock("2001"), stock("2002")) == (98, 99)


def test_two_receives_at_once_land_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # given two staff receiving the same return at once: both read it APPROVED
    delivered()
    made()
    both_read = threading.Barrier(2, timeout=60)  # a guard against a hang only
    real = services._read
    first_reads: set[int] = set()

    def read_together(rid: str) -> Any:
        found = real(rid)
        if threading.get_ident() not in first_reads:
            first_reads.add(threading.get_ident())
            both_read.wait()
        return found

    monkeypatch.setattr(services, "_read", read_together)

    def receive(_: int) -> str:
        try:
            services.return_receive(return_id="r1", warehouse_id="301", actor=STAFF)
        except ReturnConflict:
            return "conflict"
        return "received"

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = sorted(pool.map(receive, range(2)))
    # then one landed and the other is a conflict: the stock rose once
    assert outcomes == ["conflict", "received"]
    assert (stock("2001"), stock("2002")) == (100, 100)


# --- refunds bounded by what came back --------------------------------------------------------------------


def test_a_refund_is_bounded_by_the_received_lines_at_the_prices_paid() -> None:
    # given 2 x 2001 (10.50) asked back, of which 1 came back
    delivered()
    made("r1", Line("2001", 2, "DEFECTIVE"))
    services.return_receive(return_id="r1", warehouse_id="301", counts={"2001": Count(received=1)}, actor=STAFF)
    item = read()
    money = refunds.refundable("5001")
    assert services.returned_value(item, orders.order_collection("5001"), money).bound == Decimal("10.50")
    # then 10.51 is refused, and nothing is written
    with pytest.raises(RefundAboveReturned, match=r"worth 10\.50"):
        services.return_refund(return_id="r1", amount="10.51", reference="pi_1", actor=STAFF)
    assert rap.refunds_for_order(order_id="5001").items == [] and read().status == "RECEIVED"
    # and 10.50 is accepted
    services.return_refund(return_id="r1", amount="10.50", reference="pi_1", actor=STAFF)
    assert read().status == "REFUNDED"


def test_an_override_refunds_beyond_what_came_back_with_its_reason_kept_but_not_beyond_the_order() -> None:
    # given an approved return nothing of which came back (the customer keeps it)
    delivered()
    made("r1", Line("2001", 1, "DAMAGED"))
    with pytest.raises(RefundAboveReturned, match=r"worth 0\.00"):
        services.return_refund(return_id="r1", amount="10.50", reference="pi_1", actor=STAFF)
    with pytest.raises(InvalidInput):
        services.return_refund(return_id="r1", amount="10.50", reference="pi_1", override=" ", actor=STAFF)
    with pytest.raises(RefundTooLarge):
        services.return_refund(return_id="r1", amount="32.51", reference="pi_1", override="keep it", actor=STAFF)
    services.return_refund(return_id="r1", amount="10.50", reference="pi_1", override="keep it", actor=STAFF)
    (refund,) = rap.refunds_for_order(order_id="5001").items
    assert (refund.amount, refund.override, refund.return_id) == (Decimal("10.50"), "keep it", "r1")
    found = read()
    assert found.status == "REFUNDED" and found.refunded is not None and found.closed == found.refunded
    (entry, *_) = orders.order_collection("5001").history
    assert (entry.action, entry.from_status, entry.detail) == (
        "refund",
        "APPROVED",
        "return r1: 10.50 (pi_1); override: keep it",
    )


def test_each_step_keeps_its_time() -> None:
    delivered()
    services.return_request(order_id="5001", lines=[Line("2001", 1, "too big")], return_id="r1")
    assert read().approved is None and read().closed is None
    services.return_approve(return_id="r1", actor=STAFF)
    assert read().approved is not None
    services.return_request(order_id="5001", lines=[Line("2001", 1, "too big")], return_id="r2")
    services.return_reject(return_id="r2", reason="worn", actor=STAFF)
    rejected = read("r2")
    assert rejected.rejected is not None and rejected.closed == rejected.rejected
