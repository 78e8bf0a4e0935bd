"""``/orders/<oid>/`` and its ship / cancel actions against DynamoDB Local."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest
from django.test import Client

from shop import access_patterns, orders, retries
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
    assert response["X-DynamoDB-Calls"] == "1"
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
    monkeypatch.setattr(retries, "MAX_ATTEMPTS", 0)  # every attempt lost: the service gives up at once
    response = post(packer, f"/orders/{order_id}/cancel/", {"expected_version": "1"})
    assert response.status_code == 503
    assert "try again" in response.content.decode()
    assert status_of(order_id) == ("PENDING", 1)
