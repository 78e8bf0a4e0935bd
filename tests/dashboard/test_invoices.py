"""``/customers/<cid>/invoices/``: access pattern 15 against DynamoDB Local."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest
from django.test import Client

from dashboard import lists as views
from shop import orders
from shop.orders import OrderLine, PaymentSpec
from tests import factories
from tests.dashboard.conftest import csv_rows, load_more

pytestmark = pytest.mark.django_db

# (order/invoice id, placed at); 2024-03-01 00:00:00 and 2024-03-31 23:59:59 sit exactly on the bounds.
PLACED = [
    ("inv-feb", datetime(2024, 2, 29, 23, 59, 59)),
    ("inv-first", datetime(2024, 3, 1, 0, 0, 0)),
    ("inv-a", datetime(2024, 3, 5, 10, 0, 0)),
    ("inv-b", datetime(2024, 3, 12, 9, 30, 0)),
    ("inv-c", datetime(2024, 3, 20, 18, 0, 0)),
    ("inv-last", datetime(2024, 3, 31, 23, 59, 59)),
    ("inv-apr", datetime(2024, 4, 1, 0, 0, 0)),
]
MARCH_NEWEST_FIRST = ["inv-last", "inv-c", "inv-b", "inv-a", "inv-first"]
MARCH = "/customers/1001/invoices/?from=2024-03-01&to=2024-03-31"


@pytest.fixture
def invoices(shop_table: str) -> None:
    # Order ids are unique per test: order_place's ClientRequestToken does not include the table name, and
    # DynamoDB Local keeps tokens engine-wide for 10 minutes (same ids in a fresh table = IdempotentParameterMismatch).
    tag = uuid.uuid4().hex[:6]
    factories.shop_with(customers=2, products=1)
    for oid, when in PLACED:
        orders.order_place(
            customer_id="1001",
            lines=[OrderLine("2001", 2)],
            placed_at=when,
            order_id=f"{oid}-{tag}",
            payments=[PaymentSpec("GiftCard", "1.00"), PaymentSpec("Visa", "20.00", f"tx-{oid}")],
        )
    orders.order_place(
        customer_id="1002", lines=[OrderLine("2001", 1)], placed_at=datetime(2024, 3, 10), order_id=f"other-{tag}"
    )


def ids(response) -> list[str]:  # type: ignore[no-untyped-def]
    """Invoice ids on the page, without the per-test tag."""
    html = response.content.decode()
    return [row.split('"')[0].rsplit("-", 1)[0] for row in html.split('data-invoice-id="')[1:]]


def test_range_is_inclusive_newest_first_with_amounts_and_payments(staff: Client, invoices: None) -> None:
    response = staff.get(MARCH)
    assert response.status_code == 200
    assert ids(response) == MARCH_NEWEST_FIRST
    html = response.content.decode()
    assert "21.00" in html and "GiftCard" in html and "tx-inv-b" in html
    assert "Ada Lovelace" in html
    assert load_more(response) is None


def test_pages_to_the_end_without_gaps_or_duplicates_and_csv_is_their_union(staff: Client, invoices: None) -> None:
    seen: list[str] = []
    url: str | None = MARCH + "&limit=2"
    pages = 0
    while url:
        response = staff.get(url, headers={"HX-Request": "true"} if pages else {})
        assert response.status_code == 200
        assert response["X-DynamoDB-Calls"] == ("2" if pages == 0 else "1")  # GetItem only on the first page
        seen += ids(response)
        url = load_more(response)
        pages += 1
    assert seen == MARCH_NEWEST_FIRST
    assert pages == 3
    partial = staff.get(MARCH + "&limit=2", headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in partial and "data-invoice-id" in partial

    export = staff.get(MARCH + "&format=csv")
    assert export.status_code == 200 and export["Content-Type"].startswith("text/csv")
    assert export["X-DynamoDB-Calls"] == "2"
    rows = csv_rows(export)
    assert rows[0][0] == "invoice_id"
    assert [r[0].rsplit("-", 1)[0] for r in rows[1:]] == seen
    assert rows[1][1] == rows[1][0]  # the invoice id is the order id here
    assert rows[1][2:4] == ["2024-03-31T23:59:59", "21.00"]


def test_csv_streams_every_row_beyond_one_page(staff: Client, invoices: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(views, "CSV_PAGE", 2)  # 7 invoices: 4 Queries while streaming
    export = staff.get("/customers/1001/invoices/?from=2024-01-01&to=2024-12-31&format=csv&limit=1")
    assert export["X-DynamoDB-Calls"] == "2"  # what was made before the first byte: GetItem + first Query
    rows = csv_rows(export)
    assert len(rows) == 1 + len(PLACED)
    assert len({r[0] for r in rows[1:]}) == len(PLACED)


def test_default_range_is_the_last_year(staff: Client, invoices: None) -> None:
    response = staff.get("/customers/1001/invoices/")
    assert response.status_code == 200
    assert ids(response) == []  # all of them are older than a year before "now" (2026)
    assert 'name="from" value="' in response.content.decode()


def test_only_the_customers_invoices(staff: Client, invoices: None) -> None:
    assert ids(staff.get("/customers/1002/invoices/?from=2024-03-01&to=2024-03-31")) == ["other"]


@pytest.mark.parametrize(
    "query, message",
    [
        ("from=2024-13-01", "from: Enter a valid date."),
        ("to=yesterday", "to: Enter a valid date."),
        ("from=2024-03-31&to=2024-03-01", "is after"),
        ("from=2024-03-01T00:00:00", "from: Enter a valid date."),
        ("limit=0", "limit"),
        ("limit=abc", "limit"),
        ("format=xml", "format"),
        ("cursor=garbage", "invalid cursor"),
    ],
)
def test_bad_parameters_are_400_with_a_message(staff: Client, shop_table: str, query: str, message: str) -> None:
    response = staff.get(f"/customers/1001/invoices/?{query}")
    assert response.status_code == 400
    assert message in response.content.decode()


def test_tampered_and_foreign_cursors_are_400(staff: Client, invoices: None) -> None:
    url = load_more(staff.get(MARCH + "&limit=2"))
    assert url is not None
    cursor = url.split("cursor=")[1].split("&")[0]
    tampered = cursor[:-2] + ("AA" if not cursor.endswith("AA") else "BB")
    assert staff.get(url.replace(cursor, tampered)).status_code == 400
    # the same cursor for another customer or another range is refused
    assert staff.get(url.replace("/1001/", "/1002/")).status_code == 400
    assert staff.get(url.replace("to=2024-03-31", "to=2024-03-30")).status_code == 400
    # and so is a cursor of another page (pending orders)
    assert staff.get(f"/orders/pending/?cursor={cursor}").status_code == 400


def test_unknown_customer_is_404_and_bad_id_is_400(staff: Client, invoices: None) -> None:
    assert staff.get("/customers/9999/invoices/").status_code == 404
    assert staff.get("/customers/9999/invoices/?format=csv").status_code == 404
    assert staff.get("/customers/bad%20id/invoices/").status_code == 400


def test_customer_supplied_text_is_escaped(staff: Client, shop_table: str) -> None:
    factories.customer("1003", name="<script>alert(1)</script>")
    html = staff.get("/customers/1003/invoices/").content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
