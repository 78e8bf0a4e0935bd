"""Warehouse and product pages and the jump box on DynamoDB Local: each list is a registry pattern with "load more"
and a full CSV; unknown ids 404; the jump box takes ids of every kind and a customer's email (admin view GSI5)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.test import Client
from django.urls import resolve

from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows

pytestmark = pytest.mark.ddb_local


def shop_with_shipments(count: int) -> list[str]:
    """Orders w0..w<count-1> of customer 1001 for product 2001 from warehouse 301, all shipped."""
    factories.shop_with(customers=1, products=1)
    base = datetime(2026, 3, 1, 9, 0)
    ids = []
    for n in range(count):
        oid = f"w{n:02d}"
        orders.order_place(
            customer_id="1001", lines=[OrderLine("2001", 1)], placed_at=base + timedelta(hours=n), order_id=oid
        )
        orders.order_ship(order_id=oid)
        ids.append(oid)
    return ids


def test_warehouse_page_lists_stock_and_shipments_newest_first(shop_table: str, staff: Client) -> None:
    ids = shop_with_shipments(5)
    response = staff.get("/warehouses/w%23301/?limit=2")
    assert response.status_code == 200
    (stock, shipments) = response.context["sections"]
    assert [r.cells[0][0] for r in stock["rows"]] == ["2001"]  # bare ids
    assert stock["rows"][0].cells[0][2] == "/products/2001/"  # ids link to their page
    newest = [f"{oid}-1" for oid in reversed(ids)]
    assert [r.cells[0][0] for r in shipments["rows"]] == newest[:2]
    shown = [r.cells[0][0] for r in shipments["rows"]]
    url = shipments["next_url"]
    while url:  # load more, as htmx asks for it
        more = staff.get(url, headers={"HX-Request": "true"})
        assert more.status_code == 200 and b"<html" not in more.content
        shown += [r.cells[0][0] for r in more.context["rows"]]
        url = more.context["next_url"]
    assert shown == newest

    rows = csv_rows(staff.get("/warehouses/301/?list=shipments&format=csv"))
    assert rows[0][:2] == ["PK", "SK"]
    assert [r[1] for r in rows[1:]] == [f"sh#{shipment}" for shipment in newest]


def test_product_page_lists_stock_and_orders_in_a_range(shop_table: str, admin_view_table: str, staff: Client) -> None:
    ids = shop_with_shipments(3)
    sync_now()
    response = staff.get("/products/2001/?from=2026-03-01&to=2026-03-01")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/products/2001/buyers/" in page
    stock, items = response.context["sections"]
    assert [r.cells[0][0] for r in stock["rows"]] == ["301"]
    assert [r.cells[0][0] for r in items["rows"]] == list(reversed(ids))  # newest first
    # each line says when it was ordered, and by whom: the customer's name, linking to their page
    assert all(r.cells[1][0] not in ("", "—") for r in items["rows"])
    assert {(r.cells[2][0], r.cells[2][2]) for r in items["rows"]} == {("Ada Lovelace", "/customers/1001/")}
    none = staff.get("/products/2001/?from=2025-01-01&to=2025-01-31").context["sections"][1]
    assert none["rows"] == []
    rows = csv_rows(staff.get("/products/2001/?from=2026-03-01&to=2026-03-01&list=orders&format=csv"))
    assert [r[0] for r in rows[1:]] == [f"o#{oid}" for oid in reversed(ids)]


def test_unknown_ids_and_bad_parameters(shop_table: str, staff: Client) -> None:
    shop_with_shipments(1)
    assert staff.get("/warehouses/999/").status_code == 404
    assert staff.get("/products/999/").status_code == 404
    assert resolve("/products/2001/buyers/").url_name == "buyers"  # still the buyers page
    for url in [
        "/warehouses/a%20b/",
        "/warehouses/301/?list=nope",
        "/warehouses/301/?format=csv",
        "/warehouses/301/?list=stock&cursor=forged",
        "/products/2001/?from=2026-02-30",
        "/products/2001/?from=2026-03-02&to=2026-03-01",
    ]:
        response = staff.get(url)
        assert response.status_code == 400, url
        assert "Traceback" not in response.content.decode()


def test_jump_box_takes_every_kind_of_id(shop_table: str, staff: Client) -> None:
    (oid,) = shop_with_shipments(1)
    cases = {
        "kind=warehouse&id=w%23301": "/warehouses/301/",
        "kind=product&id=2001": "/products/2001/",
        "kind=invoice&id=" + oid: f"/orders/{oid}/",
        "kind=shipment&id=sh%23" + oid + "-1": f"/orders/{oid}/",
    }
    for query, location in cases.items():
        response = staff.get(f"/go/?{query}")
        assert response.status_code == 302 and response["Location"] == location, query
    assert staff.get("/go/?kind=invoice&id=nope").status_code == 404
    assert staff.get("/go/?kind=shipment&id=nope").status_code == 404
    assert staff.get("/go/?kind=email&id=not-an-email").status_code == 400


def test_jump_box_finds_a_customer_by_email(
    shop_table: str, admin_view_table: str, staff: Client, operator: Client
) -> None:
    factories.customer("1001", email="Ada.Lovelace@Example.com")
    factories.customer("1002", email="grace@example.com")
    sync_now()
    for email in ("ada.lovelace@example.com", "ADA.LOVELACE@EXAMPLE.COM", " Ada.Lovelace@Example.com "):
        response = staff.get("/go/", {"kind": "email", "id": email})
        assert response.status_code == 302 and response["Location"] == "/customers/1001/", email
    missing = staff.get("/go/", {"kind": "email", "id": "ada@example.com"})
    assert missing.status_code == 404
    explorer = operator.get("/patterns/getCustomerByEmail/", {"email": "GRACE@example.com"})
    assert [(r[0][0], r[1][0]) for r in explorer.context["rows"]] == [("s#gr", "grace@example.com#customer#1002")]
    assert explorer.context["calls"][0]["call"].index is None


def test_the_product_pages_order_lines_show_their_price_with_the_currency(
    staff: Client, shop_table: str, admin_view_table: str
) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 2)], order_id="o1")
    html = staff.get("/products/2001/").content.decode()
    assert '<td class="num secondary">$10.50</td>' in html
