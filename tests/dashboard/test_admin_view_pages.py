"""Pages on the admin view (pending orders, buyers, a customer's orders, find by transaction), with the
selectors replaced by ``FakeSelectors`` (the contract's shapes); shop-table lookups still hit DynamoDB Local."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from adminview.reads.selectors import BuyerRow
from dashboard import lists as views
from tests import factories
from tests.dashboard.conftest import FakeSelectors, csv_rows, load_more, order_rows

pytestmark = pytest.mark.django_db


def row_ids(response: Any, attr: str) -> list[str]:
    return [chunk.split('"')[0] for chunk in response.content.decode().split(f'{attr}="')[1:]]


def walk(client: Client, url: str, attr: str) -> tuple[list[str], int]:
    """Follow "load more" (as htmx does) to the end; (ids in order, pages)."""
    seen: list[str] = []
    pages = 0
    next_url: str | None = url
    while next_url:
        response = client.get(next_url, headers={"HX-Request": "true"} if pages else {})
        assert response.status_code == 200, response.content
        if pages:
            assert "<html" not in response.content.decode()
        seen += row_ids(response, attr)
        next_url = load_more(response)
        pages += 1
    return seen, pages


# --- pending orders ----------------------------------------------------------------------------------------


def test_pending_pages_to_the_end_and_csv_is_the_union(
    staff: Client, fake_av: FakeSelectors, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_av.pending = order_rows(7)
    fake_av.profiles["1001"] = {
        "Name": "Ada Lovelace",
        "Email": "ada@example.com",
        "Address": {"Street": "Main Street", "Number": "1", "City": "Goteborg"},
    }
    expected = [r.order_id for r in fake_av.pending]
    assert expected[0] == "o0006"  # newest first
    seen, pages = walk(staff, "/orders/pending/?limit=3", "data-order-id")
    assert seen == expected and pages == 3
    lists = [call for call in fake_av.calls if call[0] == "orders_by_status"]
    assert len(lists) == 3 and all(call[1]["limit"] == 3 for call in lists)

    monkeypatch.setattr(views, "CSV_PAGE", 2)
    export = staff.get("/orders/pending/?format=csv")
    assert export.status_code == 200 and export["Content-Type"].startswith("text/csv")
    rows = csv_rows(export)
    assert rows[0] == [
        *("order_id", "customer_id", "date", "status", "total", "item_count", "payment_status", "fulfilment_status"),
        *("customer_name", "customer_email"),
        *("street", "number", "zip_code", "city", "county", "country"),
    ]
    assert [r[0] for r in rows[1:]] == expected
    assert rows[1] == [
        *("o0006", "1001", "2024-01-01T06:00:00", "PENDING", "73.50", "1", "", "", "Ada Lovelace", "ada@example.com"),
        *("Main Street", "1", "", "Goteborg", "", ""),
    ]


def test_pending_rows_link_to_orders_and_page_is_empty_friendly(staff: Client, fake_av: FakeSelectors) -> None:
    html = staff.get("/orders/pending/").content.decode()
    assert "No pending orders." in html
    fake_av.pending = order_rows(2)
    html = staff.get("/orders/pending/").content.decode()
    assert 'href="/orders/o0001/"' in html and 'href="/customers/1001/"' in html
    assert load_more(staff.get("/orders/pending/")) is None


def test_pending_default_page_size_is_50(staff: Client, fake_av: FakeSelectors) -> None:
    fake_av.pending = order_rows(51)
    response = staff.get("/orders/pending/")
    assert len(row_ids(response, "data-order-id")) == 50
    assert load_more(response) is not None


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("limit=0", 400),
        ("limit=1001", 400),
        ("limit=x", 400),
        ("format=pdf", 400),
        ("cursor=abc", 400),
        ("cursor=" + "x" * 4000, 400),
        ("cursor=" + "x" * 9000, 414),  # the URL itself is over the limit: the 414 page
    ],
)
def test_pending_bad_parameters_are_400(staff: Client, fake_av: FakeSelectors, query: str, status: int) -> None:
    response = staff.get(f"/orders/pending/?{query}")
    assert response.status_code == status
    assert b"Traceback" not in response.content


def test_pending_tampered_or_foreign_cursor_is_400(staff: Client, fake_av: FakeSelectors, shop_table: str) -> None:
    fake_av.pending = order_rows(5)
    url = load_more(staff.get("/orders/pending/?limit=2"))
    assert url is not None
    cursor = url.split("cursor=")[1].split("&")[0]
    flipped = cursor[:5] + ("A" if cursor[5] != "A" else "B") + cursor[6:]
    response = staff.get(url.replace(cursor, flipped), headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert "invalid cursor" in response.content.decode()
    assert "<html" not in response.content.decode()  # htmx gets the message fragment
    factories.product("2001")
    assert staff.get(f"/products/2001/buyers/?cursor={cursor}").status_code == 400


def test_pending_selector_rejecting_a_position_is_400(staff: Client, fake_av: FakeSelectors) -> None:
    """A validly signed position the selector cannot use (InvalidInput per the contract) -> 400."""
    from dashboard import cursors

    token = cursors.encode({"before": 7}, salt="orders", scope="PENDING|newest||")  # as the list signs its own
    assert staff.get(f"/orders/pending/?cursor={token}").status_code == 400


# --- a product's buyers ------------------------------------------------------------------------------------


def buyers(n: int) -> list[BuyerRow]:
    return [
        BuyerRow(
            customer_id=f"{1001 + i}", orders=i % 3 + 1, name=None if i == 2 else f"Name {i}", email=f"b{i}@example.com"
        )
        for i in range(n)
    ]


def test_buyers_pages_and_csv(
    staff: Client, fake_av: FakeSelectors, shop_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    factories.product("2001", name="Kettle")
    fake_av.buyers["2001"] = buyers(5)
    first = staff.get("/products/2001/buyers/?limit=2")
    assert first.status_code == 200
    html = first.content.decode()
    assert "Kettle" in html and "Name 0" in html and "b0@example.com" in html
    seen, pages = walk(staff, "/products/2001/buyers/?limit=2", "data-customer-id")
    assert seen == ["1001", "1002", "1003", "1004", "1005"] and pages == 3
    assert "(no profile)" in staff.get("/products/2001/buyers/").content.decode()

    monkeypatch.setattr(views, "CSV_PAGE", 2)
    rows = csv_rows(staff.get("/products/2001/buyers/?format=csv"))
    assert rows[0] == ["customer_id", "name", "email", "orders"]
    assert [r[0] for r in rows[1:]] == seen
    assert rows[3] == ["1003", "", "b2@example.com", "3"]


def test_buyers_csv_neutralises_formulas(staff: Client, fake_av: FakeSelectors, shop_table: str) -> None:
    factories.product("2001")
    fake_av.buyers["2001"] = [BuyerRow("1001", 1, '=HYPERLINK("x")', "a@example.com")]
    rows = csv_rows(staff.get("/products/2001/buyers/?format=csv"))
    assert rows[1][1] == '\'=HYPERLINK("x")'


def test_buyers_unknown_product_404_bad_id_400(staff: Client, fake_av: FakeSelectors, shop_table: str) -> None:
    assert staff.get("/products/9999/buyers/").status_code == 404
    assert staff.get("/products/9999/buyers/?format=csv").status_code == 404
    assert staff.get("/products/bad%20id/buyers/").status_code == 400
    assert staff.get("/products/2001/buyers/?limit=-1").status_code == 400
    assert fake_av.calls == []


# --- a customer --------------------------------------------------------------------------------------------


def test_customer_profile_and_orders(staff: Client, fake_av: FakeSelectors, shop_table: str) -> None:
    factories.customer("1001", name="Ada Lovelace", email="ada@example.com")
    fake_av.by_customer["1001"] = order_rows(5)
    response = staff.get("/customers/1001/?limit=2")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Ada Lovelace" in html and "ada@example.com" in html and "Main Street 1" in html
    seen, pages = walk(staff, "/customers/1001/?limit=2", "data-order-id")
    assert seen == [r.order_id for r in order_rows(5)] and pages == 3
    assert fake_av.calls[0][1]["customer_id"] == "1001"


def test_customer_unknown_404_and_foreign_cursor_400(staff: Client, fake_av: FakeSelectors, shop_table: str) -> None:
    factories.customer("1001")
    factories.customer("1002")
    fake_av.by_customer["1001"] = order_rows(5)
    assert staff.get("/customers/9999/").status_code == 404
    assert staff.get("/customers/bad%20id/").status_code == 400
    url = load_more(staff.get("/customers/1001/?limit=2"))
    assert url is not None
    assert staff.get(url.replace("/1001/", "/1002/")).status_code == 400


# --- find and jump ------------------------------------------------------------------------------------------


def test_find_order_by_transaction_id(staff: Client, fake_av: FakeSelectors) -> None:
    fake_av.transactions["txn_abc"] = "o123"
    response = staff.get("/orders/by-transaction/?transaction_id=+txn_abc+")
    assert response.status_code == 302 and response["Location"] == "/orders/o123/"
    missing = staff.get("/orders/by-transaction/?transaction_id=nope")
    assert missing.status_code == 404 and "nope" in missing.content.decode()
    assert staff.get("/orders/by-transaction/").status_code == 400
    assert staff.get("/orders/by-transaction/?transaction_id=").status_code == 400


@pytest.mark.parametrize(
    "query, location",
    [
        ("kind=customer&id=1001", "/customers/1001/"),
        ("kind=customer&id=c%231001", "/customers/1001/"),
        ("kind=product&id=2001", "/products/2001/"),
        ("kind=order&id=o%23abc", "/orders/abc/"),
    ],
)
def test_jump_to_an_id(staff: Client, query: str, location: str) -> None:
    response = staff.get(f"/go/?{query}")
    assert response.status_code == 302 and response["Location"] == location


@pytest.mark.parametrize(
    "query", ["kind=customer", "kind=planet&id=1", "kind=order&id=p%231", "kind=order&id=a%20b", ""]
)
def test_jump_bad_parameters_are_400(staff: Client, query: str) -> None:
    assert staff.get(f"/go/?{query}").status_code == 400
