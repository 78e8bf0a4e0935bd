"""``/search/`` on DynamoDB Local with the real admin view: customers by the words of their name and the parts of
their email, products by the words of their name, orders by id, transaction id and tracking number, and a found
customer's orders; case and accents ignored; paged with "load more" (htmx) and as the box is typed in; the CSV of
every match, each once; fewer than two letters 400; calls flat; edits followed once synced. And the top bar's one
box, which goes straight to the one thing it names."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from dashboard import lists
from shop import editing, orders
from shop.audit import Actor
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows, load_more

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]


@pytest.fixture
def searchable_shop(shop_table: str, admin_view_table: str) -> None:
    factories.customer("1001", name="Ada Lovelace", email="ada.lovelace@example.com")
    factories.customer("1002", name="Åsa Ängström", email="asa@example.org")
    factories.customer("1003", name="Anna Annabel", email="anna@example.net")
    factories.customer("1004", name="Grace Hopper", email="grace@example.com")
    factories.product("2001", name="Adapter Cable")
    factories.product("2002", name="Reading Lamp")
    factories.customer("1005", name="Grace Hopper", email="grace.hopper.100116@example.com")
    factories.warehouse("301")
    factories.stock("2002", "301", 10)
    for oid, txid in (("5001", "TX-Abc-1"), ("5002", "TX-Abc-2")):
        payment = orders.PaymentSpec("Visa", "10.50", transaction_id=txid)
        orders.order_place(customer_id="1005", lines=[orders.OrderLine("2002", 1)], payments=[payment], order_id=oid)
    orders.order_ship(order_id="5001", carrier="UPS", tracking_number="1Z999AA10123456784")
    sync_now()


def found(response: Any) -> list[tuple[str, str]]:
    """(kind, id) of each row, in order."""
    assert response.status_code == 200, response.content[:300]
    return re.findall(r'<tr class="found-row" data-kind="([^"]+)" data-id="([^"]+)">', response.content.decode())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("lovelace", {("customer", "1001")}),  # a word of the name
        ("LOVE", {("customer", "1001")}),  # its start, any case
        ("asa", {("customer", "1002")}),  # accents ignored: Åsa
        ("ÄNGSTR", {("customer", "1002")}),
        ("ada.love", {("customer", "1001")}),  # the start of an email
        ("grace@exa", {("customer", "1004"), ("customer", "1005")}),  # both emails hold grace and example
        ("Grace Hopper", {("customer", "1004"), ("customer", "1005")}),  # every word, in any order
        ("hopper grace", {("customer", "1004"), ("customer", "1005")}),
        ("Grace Hop", {("customer", "1004"), ("customer", "1005")}),
        ("hopper.100116", {("customer", "1005")}),  # parts of an email
        ("@example.com", {("customer", "1001"), ("customer", "1004"), ("customer", "1005")}),
        ("example.org", {("customer", "1002")}),
        ("grace lovelace", set()),
        ("5001", {("order", "5001")}),  # an order by id
        ("tx-abc-2", {("order", "5002")}),  # by a payment's transaction id, any case
        ("1z999-aa10123456784", {("order", "5001")}),  # by a tracking number, separators ignored
        ("lamp", {("product", "2002")}),  # a word of a product's name
        ("ada", {("customer", "1001"), ("product", "2001")}),  # Ada (name and email: once) and Adapter
        ("zz", set()),
    ],
)
def test_search_finds_customers_and_products(
    staff: Client, searchable_shop: None, text: str, expected: set[Any]
) -> None:
    rows = found(staff.get("/search/", {"q": text}))
    assert set(rows) == expected and len(rows) == len(expected)


def test_a_found_customer_shows_their_latest_orders_and_an_order_its_customer(
    staff: Client, searchable_shop: None
) -> None:
    # the row asks for them as it shows (htmx); without htmx that address is the customer's page
    html = staff.get("/search/?q=hopper.100116").content.decode()
    assert 'hx-get="/search/orders/1005/" hx-trigger="load"' in html
    assert staff.get("/search/orders/1005/")["Location"] == "/customers/1005/"
    latest = staff.get("/search/orders/1005/", headers={"HX-Request": "true"})
    part = latest.content.decode()
    shown = re.findall(r'<div class="found-order"><a href="/orders/(\d+)/">', part)
    assert sorted(shown) == ["5001", "5002"] and "Order 5001, " in part and ", shipped</a>" in part
    assert "<html" not in part and latest["X-DynamoDB-Calls"] == "2"  # their order entries, then the summaries
    none = staff.get("/search/orders/1001/", headers={"HX-Request": "true"}).content.decode()
    assert "no orders" in none
    order = staff.get("/search/?q=5001").content.decode()
    assert '<a href="/orders/5001/">Order 5001</a><div>Grace Hopper</div>' in order
    assert "grace.hopper.100116@example.com" in order


def test_the_csv_lists_orders_by_id_and_every_order_of_a_found_customer(staff: Client, searchable_shop: None) -> None:
    rows = csv_rows(staff.get("/search/?q=Grace+Hop&format=csv"))
    assert rows[0] == ["kind", "id", "name", "email"]
    assert sorted(rows[1:]) == [
        ["customer", "1004", "Grace Hopper", "grace@example.com"],
        ["customer", "1005", "Grace Hopper", "grace.hopper.100116@example.com"],
        ["order", "5001", "Grace Hopper", "grace.hopper.100116@example.com"],
        ["order", "5002", "Grace Hopper", "grace.hopper.100116@example.com"],
    ]
    by_tracking = csv_rows(staff.get("/search/?q=1Z999AA10123456784&format=csv"))
    assert by_tracking[1:] == [["order", "5001", "Grace Hopper", "grace.hopper.100116@example.com"]]


def test_results_link_to_their_pages_and_say_what_they_are(staff: Client, searchable_shop: None) -> None:
    html = staff.get("/search/?q=ada").content.decode()
    assert '<a href="/customers/1001/">Ada Lovelace</a>' in html and "ada.lovelace@example.com" in html
    assert '<a href="/products/2001/">Adapter Cable</a>' in html
    assert 'hx-trigger="input changed delay:400ms, search"' in html and 'value="ada"' in html
    assert 'href="/search/?q=ada&amp;format=csv"' in html


def test_search_pages_with_load_more_and_htmx_swaps_the_results_as_the_box_is_typed_in(
    staff: Client, searchable_shop: None
) -> None:
    # given a search with two matches, one a page
    response = staff.get("/search/?q=ad&limit=1")
    seen = found(response)
    assert len(seen) == 1
    # when "load more" is followed as htmx does: the next rows alone, until every match was shown
    while (more := load_more(response)) is not None:
        response = staff.get(more, headers={"HX-Request": "true"})
        assert "<html" not in response.content.decode() and "<table" not in response.content.decode()
        seen += found(response)
    assert set(seen) == {("customer", "1001"), ("product", "2001")}
    # as the box is typed in, htmx asks for the results alone
    typed = staff.get("/search/?q=lamp", headers={"HX-Request": "true", "HX-Target": "search-results"})
    html = typed.content.decode()
    assert "<html" not in html and '<table class="list" id="search-found">' in html
    assert found(typed) == [("product", "2002")]


def test_the_csv_has_every_match_once(staff: Client, searchable_shop: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # given a search read one row at a time, so Anna Annabel (found by two words) comes on two pages
    monkeypatch.setattr(lists, "CSV_PAGE", 1)
    rows = csv_rows(staff.get("/search/?q=ann&format=csv"))  # Anna, Annabel and anna@example.net
    # then the CSV has her once, with its header, bare ids and an empty email for products
    assert rows[0] == ["kind", "id", "name", "email"]
    assert rows[1:] == [["customer", "1003", "Anna Annabel", "anna@example.net"]]
    products = csv_rows(staff.get("/search/?q=ada&format=csv"))
    assert sorted(products[1:]) == [
        ["customer", "1001", "Ada Lovelace", "ada.lovelace@example.com"],
        ["product", "2001", "Adapter Cable", ""],
    ]


@pytest.mark.parametrize("text", ["a", "é", " a ", "-.", "x" * 101])
def test_fewer_than_two_letters_is_a_400_page_with_the_error_in_place(
    staff: Client, searchable_shop: None, text: str
) -> None:
    response = staff.get("/search/", {"q": text})
    html = response.content.decode()
    assert response.status_code == 400 and "<h1>" in html and 'id="filter-errors"' in html
    assert 'class="errorlist' in html.split('id="search-form"')[1] and "found-row" not in html
    export = staff.get("/search/", {"q": text, "format": "csv"})
    assert export.status_code == 400 and not export["Content-Type"].startswith("text/csv")
    typed = staff.get("/search/", {"q": text}, headers={"HX-Request": "true"})
    assert typed.status_code == 400 and "<html" not in typed.content.decode()


def test_the_bare_page_shows_the_box_and_a_csv_of_nothing_is_refused(staff: Client, searchable_shop: None) -> None:
    bare = staff.get("/search/")
    assert bare.status_code == 200 and 'name="q"' in bare.content.decode() and not found(bare)
    assert staff.get("/search/?q=").status_code == 200
    assert staff.get("/search/?format=csv").status_code == 400
    assert staff.get("/search/?q=ada&format=pdf").status_code == 400
    assert staff.get("/search/?q=ada&cursor=forged").status_code == 400


def test_a_cursor_belongs_to_its_search(staff: Client, searchable_shop: None) -> None:
    more = load_more(staff.get("/search/?q=ad&limit=1"))
    assert more is not None and staff.get(more).status_code == 200
    assert staff.get(more.replace("q=ad", "q=an")).status_code == 400


def test_calls_are_flat_and_edits_are_followed_once_synced(staff: Client, searchable_shop: None) -> None:
    # given ten customers sharing a word, each with their latest orders shown, a page of ten
    for n in range(10):
        factories.customer(str(1100 + n), name=f"Lord Lovelace {n}")
    sync_now()
    calls = staff.get("/search/?q=lovelace&limit=10")["X-DynamoDB-Calls"]
    # when forty more share it, and Ada is renamed
    for n in range(10, 50):
        factories.customer(str(1100 + n), name=f"Lord Lovelace {n}")
    seen = editing.snapshot(editing.customer_target("1001"))
    editing.customer_edit(
        customer_id="1001", seen=seen, name="Ada King", email=seen.values["Email"], actor=Actor("bob")
    )
    sync_now()
    # then a page costs the same, and the search finds the new name and not the old
    many = staff.get("/search/?q=lovelace&limit=10")
    assert many["X-DynamoDB-Calls"] == calls and len(found(many)) == 10
    assert ("customer", "1001") in found(staff.get("/search/?q=king"))
    assert ("customer", "1001") not in found(staff.get("/search/?q=lord+lovelace&limit=500"))
    assert ("customer", "1001") in found(staff.get("/search/?q=ada.lovelace"))  # the email did not change


@pytest.mark.parametrize(
    ("query", "location"),
    [
        ("kind=search&id=Ada", "/search/?q=Ada"),
        ("kind=search&id=ada.love", "/search/?q=ada.love"),
        ("kind=customer&id=Ada%20Lovelace", "/search/?q=Ada+Lovelace"),  # not an id: a name
        ("kind=customer&id=ada%40exa", "/search/?q=ada%40exa"),  # a partial email
        ("kind=product&id=reading%20lamp", "/search/?q=reading+lamp"),
    ],
)
def test_the_jump_box_sends_anything_but_an_id_to_the_search(staff: Client, query: str, location: str) -> None:
    response = staff.get(f"/go/?{query}")
    assert response.status_code == 302 and response["Location"] == location


def test_the_jump_box_still_jumps_to_ids_and_emails(staff: Client, searchable_shop: None) -> None:
    assert staff.get("/go/?kind=customer&id=1001")["Location"] == "/customers/1001/"
    assert staff.get("/go/?kind=email&id=ada.lovelace@example.com")["Location"] == "/customers/1001/"
    assert staff.get("/go/?kind=order&id=a%20b").status_code == 400  # an order's id, asked for as one
    html = staff.get("/").content.decode()
    assert 'action="/go/"' in html and 'name="kind"' not in html  # the top bar's box has no kind to choose


@pytest.mark.parametrize(
    ("typed", "location"),
    [
        ("5001", "/orders/5001/"),  # digits: an order id
        ("grace.hopper.100116@example.com", "/customers/1005/"),  # an email: its customer
        ("1Z999AA10123456784", "/orders/5001/"),  # a tracking number: its order
        ("TX-ABC-2", "/orders/5002/"),  # a payment transaction id: its order
        ("Ada Lovelace", "/customers/1001/"),  # words matching one customer
        ("reading lamp", "/products/2002/"),
        ("Grace Hopper", "/search/?q=Grace+Hopper"),  # two: the results
        ("zzzz", "/search/?q=zzzz"),  # none: the results, which say so
        ("a", "/search/?q=a"),  # too short: the search page says why
    ],
)
def test_the_one_box_goes_straight_to_the_one_match(
    staff: Client, searchable_shop: None, typed: str, location: str
) -> None:
    response = staff.get("/go/", {"id": typed})
    assert response.status_code == 302 and response["Location"] == location


@pytest.mark.parametrize("typed", ["1Z 999-AA1-0123456785", "1Z999AA10123456785", "1z 999 aa1 0123456785"])
def test_a_tracking_number_stored_with_spaces_and_dashes_is_found_with_or_without_them(
    staff: Client, searchable_shop: None, typed: str
) -> None:
    # given order 5002 shipped with its tracking number as printed, spaces and dashes kept
    orders.order_ship(order_id="5002", carrier="UPS", tracking_number="1Z 999-AA1-0123456785")
    sync_now()
    # when staff search for it, and type it in the top bar's box
    rows = csv_rows(staff.get("/search/", {"q": typed, "format": "csv"}))
    jumped = staff.get("/go/", {"id": typed})
    # then the search holds its order, and the box goes to it
    assert ["order", "5002"] in [row[:2] for row in rows[1:]]
    assert jumped.status_code == 302 and jumped["Location"] == "/orders/5002/"
