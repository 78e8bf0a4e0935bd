"""``/orders/<oid>/`` and its ship / cancel actions against DynamoDB Local."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import datetime

import pytest
from django.test import Client

from dynamo import backoff
from shop import access_patterns, editing, orders
from shop.audit import Actor
from shop.orders import OrderLine, PaymentSpec
from tests import factories
from tests.dashboard.conftest import csrf_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def order_id(shop_table: str) -> str:
    factories.shop_with(customers=1, products=2)
    oid = "o-" + uuid.uuid4().hex[:8]  # unique: see test_invoices.invoices
    orders.order_place(
        customer_id="1001",
        lines=[OrderLine("2001", 2), OrderLine("2002", 1)],
        placed_at=datetime(2024, 5, 1, 12, 0),
        order_id=oid,
        payments=[PaymentSpec("Visa", "31.50", "tx-" + oid)],
    )
    return oid


def post(client: Client, url: str, data: dict[str, str], *, htmx: bool = True):  # type: ignore[no-untyped-def]
    headers = {"X-CSRFToken": csrf_of(client)}
    if htmx:
        headers["HX-Request"] = "true"
    return client.post(url, data, headers=headers)


def status_of(oid: str) -> tuple[str | None, int | None]:
    order = orders.order_collection(oid).order
    return order.status, order.version


def test_order_page_shows_the_whole_collection_in_one_query(packer: Client, order_id: str) -> None:
    response = packer.get(f"/orders/{order_id}/")
    assert response.status_code == 200
    # the collection's Query and its customer's GetItem; then, in the returns table, its returns, and its refunded
    # total with its refunds
    assert response["X-DynamoDB-Calls"] == "4"
    html = response.content.decode()
    for text in (
        "PENDING",
        "Product 2001",
        "Product 2002",
        "31.50",
        "Visa",
        f"tx-{order_id}",
        "Not shipped",
        'name="expected_version" value="1"',
        "Ship",
        "Cancel order",
    ):
        assert text in html, text


def test_staff_without_the_group_sees_no_buttons(staff: Client, order_id: str) -> None:
    html = staff.get(f"/orders/{order_id}/").content.decode()
    assert "PENDING" in html and 'class="ship"' not in html


def test_ship_through_htmx_swaps_the_status_and_a_second_ship_is_409(packer: Client, order_id: str) -> None:
    response = post(packer, f"/orders/{order_id}/ship/", {"expected_version": "1"})
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="order-status"') and "<html" not in html
    assert 'data-status="SHIPPED"' in html and f"Order {order_id} shipped." in html
    assert '<section id="order-shipments" hx-swap-oob="true">' in html and f"{order_id}-1" in html
    assert status_of(order_id) == ("SHIPPED", 2)
    page = packer.get(f"/orders/{order_id}/").content.decode()
    assert f"{order_id}-1" in page and "Not shipped" not in page  # the shipment is listed

    again = post(packer, f"/orders/{order_id}/ship/", {"expected_version": "2"})
    assert again.status_code == 409
    assert "only a PENDING order can be shipped" in again.content.decode()
    assert status_of(order_id) == ("SHIPPED", 2)
    cancel = post(packer, f"/orders/{order_id}/cancel/", {"expected_version": "2"})
    assert cancel.status_code == 409
    assert status_of(order_id) == ("SHIPPED", 2)


def test_stale_version_is_409_and_changes_nothing(packer: Client, order_id: str) -> None:
    response = post(packer, f"/orders/{order_id}/cancel/", {"expected_version": "7"})
    assert response.status_code == 409
    assert "changed meanwhile" in response.content.decode()
    assert status_of(order_id) == ("PENDING", 1)


def test_cancel_without_javascript_redirects_and_returns_stock(packer: Client, order_id: str) -> None:
    response = post(packer, f"/orders/{order_id}/cancel/", {"expected_version": "1"}, htmx=False)
    assert response.status_code == 302 and response["Location"] == f"/orders/{order_id}/"
    assert status_of(order_id) == ("CANCELLED", 2)
    stock = {
        row.product_id: row.quantity
        for pid in ("2001", "2002")
        for row in access_patterns.inventory_for_product(product_id=pid).items
    }
    assert stock == {"2001": 100, "2002": 100}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"reason": "boredom"}, "not one of the available choices"),
        ({"reason": "other"}, "says which"),
        ({"reason": "other", "reason_text": "x" * 201}, "at most 200 characters"),
    ],
)
def test_a_bad_cancel_reason_is_400_and_changes_nothing(
    packer: Client, order_id: str, data: dict[str, str], message: str
) -> None:
    response = post(packer, f"/orders/{order_id}/cancel/", {"expected_version": "1", **data})
    assert response.status_code == 400 and message in response.content.decode()
    assert status_of(order_id) == ("PENDING", 1)


def test_a_cancel_keeps_its_reason_on_the_order_and_in_its_history(packer: Client, order_id: str) -> None:
    data = {"expected_version": "1", "reason": "other", "reason_text": " customer  moved abroad "}
    response = post(packer, f"/orders/{order_id}/cancel/", data, htmx=False)
    assert response.status_code == 302 and status_of(order_id) == ("CANCELLED", 2)
    collection = orders.order_collection(order_id)
    assert collection.order.cancel_reason == "other: customer moved abroad"
    assert [e.detail for e in collection.history if e.action == "cancel"] == ["reason: other: customer moved abroad"]
    assert "reason: other: customer moved abroad" in packer.get(f"/orders/{order_id}/").content.decode()


def test_conflict_without_javascript_is_a_full_409_page(packer: Client, order_id: str) -> None:
    post(packer, f"/orders/{order_id}/ship/", {"expected_version": "1"}, htmx=False)
    response = post(packer, f"/orders/{order_id}/ship/", {"expected_version": "2"}, htmx=False)
    assert response.status_code == 409
    assert "<html" in response.content.decode()


@pytest.mark.parametrize("data", [{"expected_version": "x"}, {"expected_version": "-1"}])
def test_bad_expected_version_is_400(packer: Client, order_id: str, data: dict[str, str]) -> None:
    response = post(packer, f"/orders/{order_id}/ship/", data)
    assert response.status_code == 400
    assert status_of(order_id) == ("PENDING", 1)


def test_unknown_order_is_404_and_bad_id_400(packer: Client, shop_table: str) -> None:
    assert packer.get("/orders/nope/").status_code == 404
    assert post(packer, "/orders/nope/ship/", {"expected_version": "1"}).status_code == 404
    assert post(packer, "/orders/nope/cancel/", {"expected_version": "1"}).status_code == 404
    assert packer.get("/orders/bad%20id/").status_code == 400
    assert post(packer, "/orders/bad%20id/ship/", {"expected_version": "1"}).status_code == 400


def test_cancel_losing_every_race_is_503_and_changes_nothing(
    packer: Client, order_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Busy`` (contention outlasted the retries) is the same 503 on every page, never a 500."""
    monkeypatch.setattr(backoff, "RACES", replace(backoff.RACES, attempts=0))  # gives up at once, as if every send lost
    response = post(packer, f"/orders/{order_id}/cancel/", {"expected_version": "1"})
    assert response.status_code == 503
    assert "try again" in response.content.decode()
    assert status_of(order_id) == ("PENDING", 1)


def test_ship_with_a_carrier_and_tracking_number_shows_them_on_the_order_page(packer: Client, order_id: str) -> None:
    # given a pending order; when staff ship it naming the carrier and the parcel's tracking number
    data = {"expected_version": "1", "carrier": "  DHL Express ", "tracking_number": "JD014600003SE"}
    response = post(packer, f"/orders/{order_id}/ship/", data)
    # then the answer and the order page list the shipment with both, as trimmed
    assert response.status_code == 200
    for html in (response.content.decode(), packer.get(f"/orders/{order_id}/").content.decode()):
        shipments = html.split('id="order-shipments"')[1].split("</section>")[0]
        assert "<td>DHL Express</td><td>JD014600003SE</td>" in shipments
    assert [(s.carrier, s.tracking_number) for s in orders.order_collection(order_id).shipments] == [
        ("DHL Express", "JD014600003SE")
    ]


def test_the_ship_form_offers_the_two_optional_fields_labelled(packer: Client, order_id: str) -> None:
    html = packer.get(f"/orders/{order_id}/").content.decode()
    form = html.split('class="ship-form"')[1].split("</form>")[0]
    assert '<label for="id_carrier">Carrier:</label>' in form and 'name="carrier"' in form
    assert '<label for="id_tracking_number">Tracking number:</label>' in form and 'maxlength="100"' in form
    assert " required" not in form


@pytest.mark.parametrize("htmx", [True, False])
def test_an_overlong_tracking_number_is_400_with_the_form_and_its_error_in_place(
    packer: Client, order_id: str, htmx: bool
) -> None:
    # given a tracking number of 101 characters (after trimming)
    data = {"expected_version": "1", "carrier": "UPS", "tracking_number": " " + "9" * 101 + " "}
    # when staff ship with it
    response = post(packer, f"/orders/{order_id}/ship/", data, htmx=htmx)
    # then: 400, the status section again with the input kept and the error beside its field; nothing written
    assert response.status_code == 400
    html = response.content.decode()
    assert ("<html" in html) is not htmx and html.lstrip().startswith("<section") is htmx
    assert f"Order {order_id} was not shipped" in html
    assert '<ul class="errorlist" id="id_tracking_number_error">' in html
    assert 'aria-invalid="true"' in html and 'aria-describedby="id_tracking_number_error"' in html
    assert 'value="UPS"' in html and "9" * 101 in html
    assert status_of(order_id) == ("PENDING", 1)
    assert orders.order_collection(order_id).shipments == [] and orders.order_collection(order_id).history == []


def test_a_carrier_with_a_line_break_is_400_and_writes_nothing(packer: Client, order_id: str) -> None:
    response = post(packer, f"/orders/{order_id}/ship/", {"expected_version": "1", "carrier": "DHL\nExpress"})
    assert response.status_code == 400 and "line breaks" in response.content.decode()
    assert status_of(order_id) == ("PENDING", 1)


def test_the_history_shows_the_delivery_date_a_ship_moved(packer: Client, order_id: str) -> None:
    # given an order placed on 2024-05-01, expected on 2024-05-06; when it ships now
    post(packer, f"/orders/{order_id}/ship/", {"expected_version": "1"})
    # then its history says the delivery date moved, from what to what, in words
    after = orders.order_collection(order_id).order.delivery_date
    history = packer.get(f"/orders/{order_id}/timeline/").content.decode().split('id="order-history"')[1]
    assert f"<div>Delivery date: 2024-05-06 → {after}</div>" in history and "DeliveryDate" not in history


def test_the_order_says_who_placed_it_and_where_it_ships_then_where_it_went(packer: Client, order_id: str) -> None:
    # given a pending order of Ada Lovelace, who lives in Goteborg
    html = packer.get(f"/orders/{order_id}/").content.decode()
    # then the page names her, gives her email and the city it ships to: her address now
    assert '<a href="/customers/1001/">Ada Lovelace</a>' in html and "c1001@example.com" in html
    assert "<dt>Ships to</dt>" in html and "Main Street 1, 41111 Goteborg, Sweden" in html
    # when it ships and she then moves to Uppsala
    post(packer, f"/orders/{order_id}/ship/", {"expected_version": "1"})
    seen = editing.snapshot(editing.customer_target("1001"))
    editing.customer_edit(
        customer_id="1001",
        seen=seen,
        name=seen.values["Name"],
        email=seen.values["Email"],
        address={"City": "Uppsala"},
        actor=Actor("bob"),
    )
    # then the order shows where its shipment went, and a new order where it would ship now
    shipped = packer.get(f"/orders/{order_id}/").content.decode()
    assert "<dt>Shipped to</dt>" in shipped and "Goteborg" in shipped.split('id="ship-to"')[1].split("</dd>")[0]
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id=order_id + "-2")
    pending = packer.get(f"/orders/{order_id}-2/").content.decode()
    assert "Uppsala" in pending.split('id="ship-to"')[1].split("</dd>")[0]


def test_an_order_whose_customer_is_gone_still_shows(packer: Client, order_id: str) -> None:
    # given the customer's item removed from the shop table
    access_patterns.customer_by_id(customer_id="1001").delete()  # type: ignore[union-attr]
    # then the order page shows the customer's id, and dashes for what it cannot know
    html = packer.get(f"/orders/{order_id}/").content.decode()
    assert '<a href="/customers/1001/">1001</a>' in html
    assert '<dd id="ship-to">—</dd>' in html
