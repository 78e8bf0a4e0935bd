"""An order's timeline: the pure merge (``dashboard.timeline``) of what the order page reads, and its page and CSV
against DynamoDB Local (``when,event,user,detail``, newest first, calls flat in the number of returns)."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.test import Client

from dashboard.timeline import Event, timeline
from returns import services
from shop import favourites, notes, orders
from shop.audit import Actor
from shop.models import AuditEntry, Note, Order, Shipment
from shop.order_reads import OrderCollection
from shop.orders import OrderLine
from tests import factories
from tests.dashboard.conftest import csv_rows

PLACED = datetime(2026, 3, 2, 9, 0)
PACKER, RITA, ANN = Actor("packer"), Actor("rita"), Actor("ann")


def test_every_event_has_one_word_and_its_page_words() -> None:
    assert [e.value for e in Event] == [
        "placed",
        "paid",
        "shipped",
        "delivered",
        "cancelled",
        "edited",
        "return_requested",
        "return_approved",
        "return_rejected",
        "return_received",
        "refunded",
        "notified",
        "note",
    ]
    assert all(e.words for e in Event)


def test_the_merge_is_newest_first_and_says_who_and_why() -> None:
    # given an order placed, cancelled by staff for a reason, and a note edited once
    order = Order(pk="o#7", sk="c#1", date=PLACED, status="CANCELLED", total=Decimal("5"), item_count=1)
    order.cancel_reason = "out of stock"
    cancel = AuditEntry(pk="o#7", sk="AUDIT#2026-03-03T10:00:00.000001#a", action="cancel", user="packer")
    cancel.at = "2026-03-03T10:00:00.000001"
    first = Note(pk="o#7", sk="n#20260302T120000000000#00000001", text="Asked", user="ann", at="2026-03-02T12:00:00")
    edit = Note(pk="o#7", sk="n#20260304T120000000000#00000002", text="Asked twice", user="ann")
    edit.at, edit.original = "2026-03-04T12:00:00", "20260302T120000000000-00000001"
    collection = OrderCollection(order, [], [], [], [], history=[cancel], notes=[first, edit])
    # when merged, then: newest first, the note at its first time with its latest text
    rows = [(r.when_text, r.event.value, r.user, r.detail) for r in timeline(collection)]
    assert rows == [
        ("2026-03-03T10:00:00Z", "cancelled", "packer", "reason: out of stock"),
        ("2026-03-02T12:00:00Z", "note", "ann", "Asked twice (edited)"),
        ("2026-03-02T09:00:00Z", "placed", "customer", "1 item, total 5.00"),
    ]


def test_each_shipment_of_a_split_order_names_who_shipped_it() -> None:
    # given an order shipped once by packer from two warehouses: two shipments, one ship entry
    order = Order(pk="o#7", sk="c#1", date=PLACED, status="SHIPPED", total=Decimal("5"), item_count=2)
    ship = AuditEntry(pk="o#7", sk="AUDIT#2026-03-03T10:00:00.000001#a", action="ship", user="packer")
    ship.at = "2026-03-03T10:00:00.000001"
    shipped = PLACED + timedelta(days=1)
    shipments = [
        Shipment(pk="o#7", sk=f"sh#7-{n}", date=shipped, warehouse_id=w, tracking_number=f"T{n}")
        for n, w in ((1, "301"), (2, "302"))
    ]
    collection = OrderCollection(order, [], [], shipments, [], history=[ship])
    # when merged, then each shipment is packer's
    rows = [(r.event.value, r.user, r.detail) for r in timeline(collection) if r.event is Event.SHIPPED]
    assert sorted(rows) == [("shipped", "packer", "shipment 7-1: T1"), ("shipped", "packer", "shipment 7-2: T2")]


@pytest.fixture
def one_customer_one_product(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=1, products=1)


def delivered(order_id: str, units: int = 2) -> None:
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", units)], placed_at=PLACED, order_id=order_id)
    orders.order_ship(order_id=order_id, shipped_at=PLACED + timedelta(days=1), actor=PACKER)
    orders.order_deliver(order_id=order_id, actor=PACKER)


def returned(order_id: str, return_id: str) -> None:
    services.return_request(
        order_id=order_id,
        lines=[services.Line("2001", 1, "Arrived damaged")],
        requested_at=PLACED + timedelta(days=5),
        return_id=return_id,
    )
    services.return_approve(return_id=return_id, actor=RITA)


@pytest.mark.django_db
def test_the_csv_holds_each_event_newest_first_with_who(staff: Client, one_customer_one_product: None) -> None:
    # given an order paid, shipped and delivered by packer, changed by staff, returned (approved, received and
    # refunded by rita) and noted by ann
    delivered("5001")
    favourites.favourite_add(order_id="5001", product_id="2001", actor=PACKER)
    returned("5001", "r1")
    services.return_receive(return_id="r1", warehouse_id="301", actor=RITA)
    services.return_refund(return_id="r1", amount="10.00", reference="pi_42", actor=RITA)
    notes.note_add(about="order", entity_id="5001", text="Customer called about the refund", actor=ANN)
    # when the timeline is asked for as CSV
    response = staff.get("/orders/5001/timeline/?format=csv")
    header, *rows = csv_rows(response)
    # then one row per event, newest first
    assert response.status_code == 200 and header == ["when", "event", "user", "detail"]
    assert [r[0] for r in rows] == sorted((r[0] for r in rows), reverse=True)
    by_event = {r[1]: r for r in rows}
    assert sorted(by_event) == sorted(
        [
            "placed",
            "paid",
            "shipped",
            "delivered",
            "edited",
            "return_requested",
            "return_approved",
            "return_received",
            "refunded",
            "note",
        ]
    )
    assert len(rows) == len(by_event)
    assert [r[1] for r in rows[-4:]] == ["return_requested", "shipped", "paid", "placed"]
    users = {event: row[2] for event, row in by_event.items()}
    assert users == {
        "placed": "customer",
        "paid": "customer",
        "shipped": "packer",
        "delivered": "packer",
        "edited": "packer",
        "return_requested": "customer",
        "return_approved": "rita",
        "return_received": "rita",
        "refunded": "rita",
        "note": "ann",
    }
    assert by_event["placed"][0] == "2026-03-02T09:00:00Z" and by_event["shipped"][0] == "2026-03-03T09:00:00Z"
    assert by_event["note"][3] == "Customer called about the refund"
    assert "10.00 (pi_42)" in by_event["refunded"][3] and "r1" in by_event["return_received"][3]
    # and the order page shows the same rows in place of its history, the full history a link away
    page = staff.get("/orders/5001/").content.decode()
    assert page.count('class="timeline-row"') == len(rows) and 'id="order-history"' not in page
    assert 'href="/orders/5001/timeline/" id="full-history-link"' in page
    full = staff.get("/orders/5001/timeline/").content.decode()
    assert full.count('class="timeline-row"') == len(rows) and 'class="history-row" data-action="deliver"' in full


@pytest.mark.django_db
def test_its_calls_do_not_grow_with_the_returns(staff: Client, one_customer_one_product: None) -> None:
    # given an order with one return and one with five
    delivered("6001", units=1)
    returned("6001", "one")
    delivered("6002", units=5)
    for n in range(5):
        returned("6002", f"five-{n}")
    # then the timeline of each, and its page, take the same calls
    one, five = staff.get("/orders/6001/timeline/?format=csv"), staff.get("/orders/6002/timeline/?format=csv")
    assert len(csv_rows(five)) == len(csv_rows(one)) + 8  # four more returns, each requested and approved
    assert one["X-DynamoDB-Calls"] == five["X-DynamoDB-Calls"] == "3"
    pages = staff.get("/orders/6001/timeline/"), staff.get("/orders/6002/timeline/")
    assert pages[0]["X-DynamoDB-Calls"] == pages[1]["X-DynamoDB-Calls"] == "3"
    assert staff.get("/orders/6001/")["X-DynamoDB-Calls"] == staff.get("/orders/6002/")["X-DynamoDB-Calls"] == "4"


@pytest.mark.django_db
def test_an_unknown_order_is_404_and_a_bad_id_400(staff: Client, one_customer_one_product: None) -> None:
    assert staff.get("/orders/nope/timeline/?format=csv").status_code == 404
    assert staff.get("/orders/a%23b/timeline/").status_code == 400


def test_an_unknown_format_is_400_as_on_every_list(staff: Client, one_customer_one_product: None) -> None:
    response = staff.get("/orders/5001/timeline/?format=pdf")
    assert response.status_code == 400 and "not a format" in response.content.decode()
