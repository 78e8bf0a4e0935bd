"""Packing slips (``dashboard.views.slips``): one order's, linked from its page, and a selection's, from the pending
list's bulk selection or ``/orders/slips/?ids=``; where each parcel goes, what goes in it, how to track it."""

from __future__ import annotations

import re
import uuid
from datetime import datetime

import pytest
from django.test import Client

from dashboard.forms.slips import MAX_SLIPS
from shop import editing, orders
from shop.audit import Actor
from shop.order_reads import order_collections
from shop.orders import OrderLine
from tests import factories
from tests.dashboard.conftest import csrf_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_orders(shop_table: str, admin_view_table: str) -> list[str]:
    """Two pending orders of Ada Lovelace (Main Street 1, 41111 Goteborg): two products, then one."""
    factories.shop_with(customers=1, products=2)
    tag = uuid.uuid4().hex[:6]
    ids = [f"a-{tag}", f"b-{tag}"]
    orders.order_place(
        customer_id="1001",
        lines=[OrderLine("2001", 2), OrderLine("2002", 1)],
        placed_at=datetime(2026, 3, 1),
        order_id=ids[0],
    )
    orders.order_place(
        customer_id="1001", lines=[OrderLine("2002", 3)], placed_at=datetime(2026, 3, 2), order_id=ids[1]
    )
    return ids


def slips_of(html: str) -> list[str]:
    return re.findall(r'<section class="slip" aria-labelledby="slip-[^"]+" data-order-id="([^"]+)">', html)


def test_an_orders_slip_names_the_customer_the_address_and_each_line(staff: Client, two_orders: list[str]) -> None:
    # when an order's packing slip is asked for
    response = staff.get(f"/orders/{two_orders[0]}/slip/")
    # then it holds the order id, the customer's name, where it ships (their address now) and each line
    assert response.status_code == 200
    html = response.content.decode()
    assert slips_of(html) == [two_orders[0]]
    assert f"Order {two_orders[0]}" in html and "Ada Lovelace" in html and "Goteborg" in html
    assert "<dt>Ship to</dt>" in html and "Main Street 1" in html
    lines = re.findall(r'<tr class="slip-line"><td>(\d+)</td><td>([^<]+)</td><td class="num">(\d+)</td></tr>', html)
    assert lines == [("2001", "Product 2001", "2"), ("2002", "Product 2002", "1")]
    # its calls: the order's Query, a BatchGetItem of the customer (none of product names: the lines keep theirs)
    assert response["X-DynamoDB-Calls"] == "2"
    # and the order page links it
    page = staff.get(f"/orders/{two_orders[0]}/").content.decode()
    assert f'<a href="/orders/{two_orders[0]}/slip/" id="order-slip-link">Packing slip</a>' in page


def test_a_shipped_orders_slip_gives_the_shipments_address_and_its_tracking_links(
    staff: Client, two_orders: list[str]
) -> None:
    # given an order shipped with DHL, and its customer moving afterwards
    orders.order_ship(order_id=two_orders[0], carrier="DHL", tracking_number="JD 1")
    seen = editing.snapshot(editing.customer_target("1001"))
    editing.customer_edit(
        customer_id="1001",
        seen=seen,
        name=seen.values["Name"],
        email=seen.values["Email"],
        address={"City": "Uppsala"},
        actor=Actor("bob"),
    )
    # then the slip says where it went, and links its tracking page
    html = staff.get(f"/orders/{two_orders[0]}/slip/").content.decode()
    assert "<dt>Shipped to</dt>" in html and "Goteborg" in html and "Uppsala" not in html
    url = "https://www.dhl.com/global-en/home/tracking.html?tracking-id=JD%201&amp;submit=1"
    link = f'<a href="{url}" rel="noopener noreferrer">JD 1</a>'
    assert link in html


def test_a_selections_slips_come_one_each_in_the_order_given(staff: Client, two_orders: list[str]) -> None:
    response = staff.get(f"/orders/slips/?ids={two_orders[1]},{two_orders[0]},{two_orders[1]}")
    assert response.status_code == 200
    assert slips_of(response.content.decode()) == [two_orders[1], two_orders[0]]
    # two Queries side by side and one BatchGetItem of the customers
    assert response["X-DynamoDB-Calls"] == "3"


@pytest.mark.parametrize(
    ("query", "status"),
    [("", 400), ("ids=", 400), ("ids=bad%20id!", 400), ("ids=" + ",".join(f"o{n}" for n in range(MAX_SLIPS + 1)), 400)],
)
def test_a_selection_that_cannot_be_printed_is_a_400(staff: Client, shop_table: str, query: str, status: int) -> None:
    assert staff.get(f"/orders/slips/?{query}").status_code == status


def test_an_unknown_order_has_no_slip(staff: Client, two_orders: list[str]) -> None:
    assert staff.get("/orders/nope-1/slip/").status_code == 404
    assert staff.get(f"/orders/slips/?ids={two_orders[0]},nope-1").status_code == 404


def test_the_pending_lists_packing_slips_action_goes_to_the_selections_slips(
    packer: Client, two_orders: list[str]
) -> None:
    data = {"action": "slips", "status": "PENDING", "order": two_orders}
    headers = {"X-CSRFToken": csrf_of(packer)}
    plain = packer.post("/orders/bulk/", data, headers=headers)
    assert plain.status_code == 302 and plain["Location"] == f"/orders/slips/?ids={two_orders[0]}%2C{two_orders[1]}"
    htmx = packer.post("/orders/bulk/", data, headers=headers | {"HX-Request": "true"})
    assert htmx["HX-Redirect"] == plain["Location"]
    assert [o.order.status for o in order_collections(two_orders)] == ["PENDING", "PENDING"]
