"""Returns' status changes against DynamoDB Local: each conditional on the status read, audited in the same
transaction; receiving changes the return and the shop's stock in one transaction across the two tables."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from dynamo.client import client_of
from returns import access_patterns as rap
from returns import restock, services
from returns.errors import ReturnConflict, UnknownWarehouse
from returns.keys import ReturnStatus
from shop import access_patterns as ap
from shop import editing, keys, orders
from shop.errors import InvalidInput, NotFound, OrderConflict
from shop.keys import OrderStatus
from shop.models import ShopItem
from shop.orders import OrderLine
from tests.returns.conftest import PLACED, STAFF, delivered, received, requested, stock

pytestmark = pytest.mark.usefixtures("two_customers_two_products")


def status(return_id: str = "r1") -> str | None:
    found = rap.return_by_id(return_id=return_id)
    return found.status if found else None


def trail(order_id: str = "5001") -> list[tuple[str, str | None, str | None, str | None]]:
    """The order's audit entries, oldest first: action, from, to, detail."""
    history = orders.order_collection(order_id).history
    return [(e.action, e.from_status, e.to_status, e.detail) for e in reversed(history)]


# --- request ------------------------------------------------------------------------------------------------


def test_a_request_holds_the_contracts_shape() -> None:
    delivered()
    services.return_request(
        order_id="5001",
        lines=[services.Line("2001", 1, " Arrived damaged "), services.Line("p#2002", 1, "Too small")],
        requested_at=PLACED,
        return_id="r1",
    )
    raw = rap.return_by_id(return_id="r1")
    assert raw is not None
    stored = raw.attributes_as_read()
    assert stored is not None
    assert stored["PK"] == stored["SK"] == {"S": "r#r1"}
    assert (stored["GSI1-PK"], stored["GSI1-SK"], stored["EntityType"]) == (
        {"S": "o#5001"},
        {"S": "r#r1"},
        {"S": "return"},
    )
    assert (stored["OrderId"], stored["CustomerId"], stored["Status"]) == (
        {"S": "5001"},
        {"S": "1001"},
        {"S": "REQUESTED"},
    )
    assert stored["Requested"] == {"S": "2026-03-02T09:00:00"}
    assert stored["Lines"] == {
        "L": [
            {"M": {"ProductId": {"S": "2001"}, "Quantity": {"S": "1"}, "Reason": {"S": "Arrived damaged"}}},
            {"M": {"ProductId": {"S": "2002"}, "Quantity": {"S": "1"}, "Reason": {"S": "Too small"}}},
        ]
    }
    assert [r.return_id for r in rap.returns_for_order(order_id="5001").items] == ["r1"]


@pytest.mark.parametrize(
    "lines",
    [
        [],
        [services.Line("2001", 0, "why")],
        [services.Line("2001", 1, "  ")],
        [services.Line("2001", 1, "line\nbreak")],
        [services.Line("2001", 3, "more than ordered")],
        [services.Line("2003", 1, "not in the order")],
        [services.Line("c#2001", 1, "wrong prefix")],
    ],
)
def test_a_bad_request_is_refused_and_writes_nothing(lines: list[services.Line]) -> None:
    delivered()
    with pytest.raises(InvalidInput):
        services.return_request(order_id="5001", lines=lines, return_id="r1")
    assert rap.return_by_id(return_id="r1") is None


def test_only_a_delivered_order_is_returned_and_units_once() -> None:
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 2)], order_id="5009")
    with pytest.raises(OrderConflict):
        services.return_request(order_id="5009", lines=[services.Line("2001", 1, "why")])
    with pytest.raises(NotFound):
        services.return_request(order_id="5999", lines=[services.Line("2001", 1, "why")])
    delivered()
    requested(units=1)
    requested(return_id="r2", units=1)
    with pytest.raises(InvalidInput, match="only 0 of product 2001"):
        requested(return_id="r3", units=1)
    services.return_reject(return_id="r2", reason="Worn", actor=STAFF)
    requested(return_id="r3", units=1)  # a rejected return's units may be asked for again
    services.return_reject(return_id="r3", reason="Worn", actor=STAFF)
    with pytest.raises(ReturnConflict, match="already exists"):
        requested(return_id="r3", units=1)  # the same id twice: the second is refused


# --- approve, reject ----------------------------------------------------------------------------------------


def test_approve_then_a_second_approve_is_a_conflict() -> None:
    delivered()
    requested()
    services.return_approve(return_id="r#r1", actor=STAFF)
    assert status() == "APPROVED"
    with pytest.raises(ReturnConflict, match="is APPROVED"):
        services.return_approve(return_id="r1", actor=STAFF)
    with pytest.raises(ReturnConflict):
        services.return_reject(return_id="r1", reason="late", actor=STAFF)
    assert trail()[-1] == ("return-approve", "REQUESTED", "APPROVED", "return r1")
    assert [a for a, *_ in trail()].count("return-approve") == 1


def test_reject_keeps_the_reason_and_closes_the_return() -> None:
    delivered()
    requested()
    with pytest.raises(InvalidInput):
        services.return_reject(return_id="r1", reason=" ", actor=STAFF)
    services.return_reject(return_id="r1", reason=" Worn for months ", actor=STAFF)
    found = rap.return_by_id(return_id="r1")
    assert found is not None and (found.status, found.reason) == ("REJECTED", "Worn for months")
    assert trail()[-1] == ("return-reject", "REQUESTED", "REJECTED", "return r1: Worn for months")
    actions: list[Callable[[], object]] = [
        lambda: services.return_approve(return_id="r1", actor=STAFF),
        lambda: services.return_receive(return_id="r1", warehouse_id="301", actor=STAFF),
        lambda: services.return_refund(return_id="r1", amount="1.00", reference="x", actor=STAFF),
    ]
    for action in actions:
        with pytest.raises(ReturnConflict):
            action()
    assert status() == "REJECTED"


def test_an_unknown_return_is_not_found() -> None:
    with pytest.raises(NotFound):
        services.return_approve(return_id="nope", actor=STAFF)


def test_the_status_is_checked_at_commit_not_only_when_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # given a return that someone else rejects between our read and our commit
    delivered()
    requested()
    after_next_read(monkeypatch, lambda: services.return_reject(return_id="r1", reason="too late", actor=STAFF))
    # when we approve it, then the approve is a conflict naming what it is now, and it stays rejected
    with pytest.raises(ReturnConflict, match="now REJECTED"):
        services.return_approve(return_id="r1", actor=STAFF)
    assert status() == "REJECTED"
    assert [a for a, *_ in trail()].count("return-approve") == 0


# --- receive: the return and the stock in one transaction ---------------------------------------------------


def test_receive_adds_each_line_to_the_stock_of_that_warehouse() -> None:
    delivered()
    services.return_request(
        order_id="5001",
        lines=[services.Line("2001", 2, "damaged"), services.Line("2002", 1, "small")],
        return_id="r1",
    )
    services.return_approve(return_id="r1", actor=STAFF)
    before = (stock("2001"), stock("2002"))
    services.return_receive(return_id="r1", warehouse_id="w#301", actor=STAFF)
    assert (stock("2001"), stock("2002")) == (before[0] + 2, before[1] + 1)  # type: ignore[operator]
    found = rap.return_by_id(return_id="r1")
    assert found is not None and (found.status, found.warehouse_id) == ("RECEIVED", "301")
    assert trail()[-1] == ("return-receive", "APPROVED", "RECEIVED", "return r1: into warehouse 301")


def test_receive_restocks_each_line_into_its_own_warehouse_in_one_transaction() -> None:
    # given an approved return of 2 x 2001 and 1 x 2002
    delivered()
    services.return_request(
        order_id="5001", lines=[services.Line("2001", 2, "SIZE"), services.Line("2002", 1, "SIZE")], return_id="r1"
    )
    services.return_approve(return_id="r1", actor=STAFF)
    before = stock("2001")
    # when received with 2002's line going back into 302, the rest into the return's warehouse
    counts = {"2002": services.Count(warehouse_id="w#302")}
    services.return_receive(return_id="r1", warehouse_id="301", counts=counts, actor=STAFF)
    # then each line's units are in its own warehouse, and each line says where it went
    assert (stock("2001"), stock("2002", "302")) == (before + 2, 1)  # type: ignore[operator]
    found = rap.return_by_id(return_id="r1")
    assert found is not None and [(ln.product_id, ln.warehouse_id) for ln in found.lines] == [
        ("2001", "301"),
        ("2002", "302"),
    ]
    assert trail()[-1] == ("return-receive", "APPROVED", "RECEIVED", "return r1: into warehouse 301, 302")


def test_receive_into_a_warehouse_without_a_row_creates_one() -> None:
    delivered()
    requested()
    services.return_approve(return_id="r1", actor=STAFF)
    assert stock("2001", "302") is None
    services.return_receive(return_id="r1", warehouse_id="302", actor=STAFF)
    assert stock("2001", "302") == 2
    (row,) = ap.inventory_for_warehouse(warehouse_id="302").items  # listed among the warehouse's stock too
    assert (row.product_id, row.quantity) == ("2001", 2)


def test_receive_into_an_unknown_warehouse_is_refused_and_changes_nothing() -> None:
    delivered()
    requested()
    services.return_approve(return_id="r1", actor=STAFF)
    with pytest.raises(UnknownWarehouse):
        services.return_receive(return_id="r1", warehouse_id="399", actor=STAFF)
    assert status() == "APPROVED" and stock("2001") == 98


def test_receive_is_refused_as_a_whole_when_the_return_moved(monkeypatch: pytest.MonkeyPatch) -> None:
    # given an approved return whose status another service changes between our read and our commit
    delivered()
    requested()
    services.return_approve(return_id="r1", actor=STAFF)
    before = stock("2001")
    after_next_read(monkeypatch, lambda: set_status("r1", "REJECTED"))
    # when staff receive it, then neither table changes
    with pytest.raises(ReturnConflict, match="now REJECTED"):
        services.return_receive(return_id="r1", warehouse_id="301", actor=STAFF)
    assert stock("2001") == before and status() == "REJECTED"
    assert "return-receive" not in [a for a, *_ in trail()]


def test_receive_is_refused_as_a_whole_when_a_stock_row_moved_and_then_counts_the_new_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given an approved return, and a stock change landing between our read of the stock and our commit
    delivered()
    requested()
    services.return_approve(return_id="r1", actor=STAFF)
    real = restock.read_shelf
    attempts: list[Any] = []

    def read_then_stock_moves(warehouse_id: str, product_ids: list[str]) -> Any:
        shelf = real(warehouse_id, product_ids)
        if not attempts:
            editing.stock_adjust(product_id="2001", warehouse_id="301", delta=-5, reason="count", actor=STAFF)
        attempts.append(shelf)
        return shelf

    monkeypatch.setattr(restock, "read_shelf", read_then_stock_moves)
    # when staff receive it
    services.return_receive(return_id="r1", warehouse_id="301", actor=STAFF)
    # then the first transaction was refused as a whole and the second counted the new level: nothing lost
    assert len(attempts) == 2
    assert stock("2001") == 98 - 5 + 2
    assert [a for a, *_ in trail()].count("return-receive") == 1


def test_a_return_received_twice_adds_its_units_once() -> None:
    delivered()
    received()
    with pytest.raises(ReturnConflict):
        services.return_receive(return_id="r1", warehouse_id="301", actor=STAFF)
    assert stock("2001") == 100


def after_next_read(monkeypatch: pytest.MonkeyPatch, change: Callable[[], object]) -> None:
    """The services' next read of a return is followed, before they write anything, by ``change``."""
    real = services._read
    done: list[bool] = []

    def read_then_change(rid: str) -> Any:
        found = real(rid)
        if not done:
            done.append(True)
            change()
        return found

    monkeypatch.setattr(services, "_read", read_then_change)


def set_status(return_id: str, value: str) -> None:
    """What another service does: a plain UpdateItem of the return's ``Status``."""
    from returns.models import ReturnItem

    found = rap.return_by_id(return_id=return_id)
    assert found is not None
    found.update(actions=[ReturnItem.status.set(value)])


def test_a_return_written_by_another_service_is_acted_on_like_ours() -> None:
    # given a return another service put with a plain PutItem in the contract's shape (no attribute of ours)
    delivered()
    from dynamo.client import client_of
    from returns.models import ReturnsItem

    client_of(ReturnsItem).put_item(
        TableName=str(ReturnsItem.Meta.table_name),
        Item={
            "PK": {"S": "r#x9"},
            "SK": {"S": "r#x9"},
            "GSI1-PK": {"S": "o#5001"},
            "GSI1-SK": {"S": "r#x9"},
            "EntityType": {"S": "return"},
            "OrderId": {"S": "5001"},
            "CustomerId": {"S": "1001"},
            "Status": {"S": "REQUESTED"},
            "Requested": {"S": "2026-03-09T10:00:00"},
            "Lines": {"L": [{"M": {"ProductId": {"S": "2002"}, "Quantity": {"S": "1"}, "Reason": {"S": "Broken"}}}]},
        },
    )
    # when staff approve and receive it, then it moves like ours and the stock follows
    services.return_approve(return_id="x9", actor=STAFF)
    services.return_receive(return_id="x9", warehouse_id="301", actor=STAFF)
    assert status("x9") == ReturnStatus.RECEIVED and stock("2002") == 100
    assert orders.order_collection("5001").order.status == OrderStatus.DELIVERED


def test_receive_refuses_a_stock_row_it_cannot_read_naming_its_product() -> None:
    # given an approved return, and the product's stock row in its warehouse holding a quantity that is no number
    delivered()
    requested()
    services.return_approve(return_id="r1", actor=STAFF)
    client = client_of(ShopItem)
    row = keys.inventory_keys("2001", "301")
    client.update_item(
        TableName=ShopItem.Meta.table_name,
        Key={"PK": {"S": row["pk"]}, "SK": {"S": row["sk"]}},
        UpdateExpression="SET Quantity = :q",
        ExpressionAttributeValues={":q": {"S": "lots"}},
    )
    # when staff receive it: a clear refusal naming the product, and nothing changed
    with pytest.raises(InvalidInput, match="product 2001"):
        services.return_receive(return_id="r1", warehouse_id="301", actor=STAFF)
    assert status() == "APPROVED"
