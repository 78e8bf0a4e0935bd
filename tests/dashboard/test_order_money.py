"""An order's money and fulfilment on its page and as JSON, and the payments and refunds ``finance`` makes from the
order page, against DynamoDB Local: the view follows them and stays verifiably clean."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from adminview.repair import rebuild
from adminview.sync.handler import handler
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview.streams import new_records
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csrf_of, csv_rows

pytestmark = pytest.mark.django_db
PLACED = datetime(2026, 3, 2, 9, 0)


@pytest.fixture
def finance(db: None) -> Client:
    user = User.objects.create_user("fiona", "fiona@example.com", "pw-fiona-123", is_staff=True)
    user.groups.add(Group.objects.get_or_create(name="finance")[0])
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


@pytest.fixture
def one_unpaid_one_paid_order(shop_table: str, admin_view_table: str) -> None:
    """Order 5001 (2 x 2001 at 10.50, 1 x 2002 at 10.50: 31.50) unpaid; order 5002 paid in full."""
    factories.shop_with(customers=1, products=2)
    lines = [OrderLine("2001", 2), OrderLine("2002", 1)]
    orders.order_place(customer_id="1001", lines=lines, placed_at=PLACED, order_id="5001", payments=[])
    orders.order_place(customer_id="1001", lines=lines, placed_at=PLACED, order_id="5002")


def post(client: Client, url: str, data: dict[str, str], *, htmx: bool = False) -> Any:
    headers = {"X-CSRFToken": csrf_of(client)} | ({"HX-Request": "true"} if htmx else {})
    return client.post(url, data, headers=headers)


def as_json(client: Client, oid: str) -> dict[str, Any]:
    response = client.get(f"/orders/{oid}/?format=json")
    assert response.status_code == 200
    found: dict[str, Any] = response.json()
    return found


def test_the_json_gives_the_orders_money_and_lines(staff: Client, one_unpaid_one_paid_order: None) -> None:
    assert as_json(staff, "5002") == {
        "order_id": "5002",
        "status": "PENDING",
        "payment_status": "paid",
        "fulfilment_status": "unfulfilled",
        "total": "31.50",
        "paid": "31.50",
        "refunded": "0.00",
        "due": "0.00",
        "lines": [
            {"product_id": "2001", "quantity": 2, "shipped": 0, "price": "10.50"},
            {"product_id": "2002", "quantity": 1, "shipped": 0, "price": "10.50"},
        ],
    }
    assert as_json(staff, "5001")["payment_status"] == "unpaid"
    assert staff.get("/orders/nope/?format=json").status_code == 404


def test_shipping_fulfils_every_line(packer: Client, one_unpaid_one_paid_order: None) -> None:
    orders.order_ship(order_id="5002")
    found = as_json(packer, "5002")
    assert found["fulfilment_status"] == "fulfilled"
    assert [line["shipped"] for line in found["lines"]] == [2, 1]


def test_the_order_page_shows_both_statuses_and_the_money_forms_only_to_finance(
    staff: Client, finance: Client, one_unpaid_one_paid_order: None
) -> None:
    html = finance.get("/orders/5001/").content.decode()
    assert 'id="payment-status">Unpaid<' in html and 'id="fulfilment-status">Unfulfilled<' in html
    assert 'id="payment-form"' in html and 'id="refund-form"' not in html  # nothing paid, nothing to refund
    assert 'id="payment-form"' not in staff.get("/orders/5001/").content.decode()


def test_payments_up_to_what_is_due_then_a_refund_each_follow_in_json_view_and_timeline(
    finance: Client, one_unpaid_one_paid_order: None
) -> None:
    # given an unpaid order, when finance takes part of it, then the rest
    assert post(finance, "/orders/5001/payments/", {"amount": "30", "reference": "bank-1"}).status_code == 302
    assert as_json(finance, "5001")["payment_status"] == "partially_paid"
    too_much = post(finance, "/orders/5001/payments/", {"amount": "1.51", "reference": "bank-2"}, htmx=True)
    assert too_much.status_code == 400 and "at most what is due (1.50)" in too_much.content.decode()
    assert post(finance, "/orders/5001/payments/", {"amount": "1.50", "reference": "bank-2"}).status_code == 302
    paid = as_json(finance, "5001")
    assert (paid["payment_status"], paid["paid"], paid["due"]) == ("paid", "31.50", "0.00")
    # when a goodwill refund is made
    no_reason = post(finance, "/orders/5001/refund/", {"amount": "5", "reference": "rf-1"}, htmx=True)
    assert no_reason.status_code == 400 and 'id="id_reason_error"' in no_reason.content.decode()
    over = post(finance, "/orders/5001/refund/", {"amount": "31.51", "reason": "goodwill", "reference": "rf-1"})
    assert over.status_code == 400
    done = post(finance, "/orders/5001/refund/", {"amount": "5", "reason": "late parcel", "reference": "rf-1"})
    assert done.status_code == 302
    found = as_json(finance, "5001")
    assert (found["payment_status"], found["refunded"]) == ("partially_refunded", "5.00")
    # then the timeline tells both, the view counts the refund for the customer, and verify is clean
    html = finance.get("/orders/5001/").content.decode()
    assert html.count('data-event="paid"') == 2 and html.count('data-event="refunded"') == 1
    sync_now()
    totals = finance.get("/customers/1001/?format=json").json()
    assert (totals["paid"], totals["refunded"]) == ("63.00", "5.00")  # 5002 paid when placed, 5001 by hand
    assert rebuild.verify(settle_s=0).clean


def test_money_actions_are_for_finance_only_and_need_csrf(
    packer: Client, finance: Client, one_unpaid_one_paid_order: None
) -> None:
    data = {"amount": "1", "reference": "x", "reason": "r"}
    assert post(packer, "/orders/5002/refund/", data).status_code == 403
    assert post(packer, "/orders/5001/payments/", data).status_code == 403
    assert finance.post("/orders/5002/refund/", data).status_code == 403  # no CSRF token
    assert as_json(finance, "5002")["refunded"] == "0.00"


@pytest.mark.parametrize("amount", ["-1", "0", "1e3", "1.234", "", "x"])
def test_a_bad_amount_is_400_naming_the_field(finance: Client, one_unpaid_one_paid_order: None, amount: str) -> None:
    response = post(finance, "/orders/5001/payments/", {"amount": amount, "reference": "r"}, htmx=True)
    assert response.status_code == 400 and 'id="id_amount_error"' in response.content.decode()


def test_a_cancelled_order_takes_no_payment(finance: Client, one_unpaid_one_paid_order: None) -> None:
    orders.order_cancel(order_id="5001")
    response = post(finance, "/orders/5001/payments/", {"amount": "1", "reference": "r"}, htmx=True)
    assert response.status_code == 409


def _row(html: str, oid: str) -> str:
    start = html.index(f'id="row-{oid}"')
    return html[start : html.index("</tr>", start)]


def test_the_lists_show_payment_fulfilment_and_what_is_left_exactly_under_redelivery(
    packer: Client, finance: Client, one_unpaid_one_paid_order: None
) -> None:
    # given 5001 partly paid with one of its two 2001s shipped, and 5002 partly refunded
    assert post(finance, "/orders/5001/payments/", {"amount": "10", "reference": "bank-1"}).status_code == 302
    orders.order_ship(order_id="5001", quantities={"2001": 1})
    refund = {"amount": "5", "reason": "late parcel", "reference": "rf-1"}
    assert post(finance, "/orders/5002/refund/", refund).status_code == 302
    # when the view takes the streams, then takes every record again, newest first
    records = new_records()
    assert handler({"Records": records}) == {"batchItemFailures": []}
    assert handler({"Records": list(reversed(records))}) == {"batchItemFailures": []}
    # then the pending list shows each order's statuses and what is left to ship, as the order page derives them
    html = packer.get("/orders/pending/").content.decode()
    assert "<td>Partially paid</td><td>Partially fulfilled</td>" in _row(html, "5001")
    assert "3 (2 left to ship)" in _row(html, "5001")
    assert "<td>Partially refunded</td><td>Unfulfilled</td>" in _row(html, "5002")
    assert as_json(packer, "5001")["payment_status"] == "partially_paid"
    listed = csv_rows(packer.get("/orders/pending/?format=csv"))
    found = {r[0]: (r[6], r[7]) for r in listed[1:]}
    assert found == {"5001": ("partially_paid", "partially_fulfilled"), "5002": ("partially_refunded", "unfulfilled")}
    customer = packer.get("/customers/1001/").content.decode()
    assert customer.count("Partially fulfilled") == 1 and customer.count("Partially refunded") == 1
    # and the pick list and the slip take only what is left
    pick = csv_rows(packer.get("/orders/pending/?format=csv&lines=1&sort=oldest"))
    assert [(r[0], r[3], r[5]) for r in pick[1:] if r[0] == "5001"] == [("5001", "2001", "1"), ("5001", "2002", "1")]
    slip = packer.get("/orders/5001/slip/").content.decode()
    assert '<td class="num">1 <span class="note">of 2 ordered</span></td>' in slip
    # and once the rest has shipped, the order leaves the pending list fulfilled, and verify is clean
    orders.order_ship(order_id="5001")
    sync_now()
    shipped = packer.get("/orders/?status=SHIPPED").content.decode()
    assert "<td>Partially paid</td><td>Fulfilled</td>" in _row(shipped, "5001")
    assert rebuild.verify(settle_s=0).clean
