"""``POST /orders/bulk/`` asks before it cancels, and says why it refused a selection where the outcome would show,
on DynamoDB Local (the shop table; the bulk action reads and writes nothing else)."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.test import Client

from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.dashboard.conftest import csrf_of

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]


@pytest.fixture
def pending(shop_table: str) -> list[str]:
    """Three pending orders of customers 1001 and 1002, oldest first."""
    factories.shop_with(customers=2, products=1)
    tag = uuid.uuid4().hex[:6]
    ids = [f"q{n}-{tag}" for n in range(3)]
    for n, oid in enumerate(ids):
        orders.order_place(
            customer_id=str(1001 + n % 2),
            lines=[OrderLine("2001", 1)],
            placed_at=datetime(2026, 5, 1) + timedelta(hours=n),
            order_id=oid,
        )
    return ids


def bulk(client: Client, data: dict[str, Any], *, htmx: bool) -> Any:
    headers = {"X-CSRFToken": csrf_of(client)}
    if htmx:
        headers["HX-Request"] = "true"
    return client.post("/orders/bulk/", data, headers=headers)


def statuses(order_ids: list[str]) -> list[str | None]:
    return [orders.order_collection(oid).order.status for oid in order_ids]


def hidden_fields(form: str) -> list[tuple[str, str]]:
    return re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)"', form)


def test_cancel_without_confirmation_lists_the_orders_and_changes_nothing(packer: Client, pending: list[str]) -> None:
    chosen = [pending[0], pending[1]]
    response = bulk(packer, {"action": "cancel", "status": "PENDING", "order": chosen}, htmx=False)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Cancel 2 orders?</h1>" in html and "cannot be undone" in html
    rows = re.findall(r'<tr class="order-row" data-order-id="([^"]+)">(.*?)</tr>', html)
    assert [oid for oid, _ in rows] == chosen
    assert all("PENDING" in cells and "10.50" in cells for _, cells in rows)  # what the list shows of them
    assert 'href="/customers/1001/">Ada Lovelace</a>' in rows[0][1]  # and who placed them, by name
    assert 'href="/customers/1002/">Ada Lovelace</a>' in rows[1][1]
    assert "refunds what it paid" in html and 'name="reason"' in html
    form = html.split('id="bulk-confirm-form">')[1].split("</form>")[0]
    assert 'method="post" action="/orders/bulk/"' in html and "hx-post" not in form
    assert [name for name, _ in hidden_fields(form)].count("csrfmiddlewaretoken") == 1
    fields = [f for f in hidden_fields(form) if f[0] != "csrfmiddlewaretoken"]
    assert fields == [("action", "cancel"), ("status", "PENDING"), *(("order", o) for o in chosen), ("confirm", "yes")]
    assert statuses(pending) == ["PENDING"] * 3  # nothing changed

    confirmed = bulk(packer, {name: [v for n, v in fields if n == name] for name, _ in fields}, htmx=False)
    assert confirmed.status_code == 200 and "2 done." in confirmed.content.decode()
    assert statuses(pending) == ["CANCELLED", "CANCELLED", "PENDING"]


def test_cancel_without_confirmation_with_htmx_asks_above_the_list(
    packer: Client, pending: list[str], admin_view_table: str
) -> None:
    response = bulk(packer, {"action": "cancel", "status": "PENDING", "order": [pending[2], "gone"]}, htmx=True)
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#bulk-confirm" and response["HX-Reswap"] == "innerHTML"
    html = response.content.decode()
    assert "<html" not in html and html.lstrip().startswith('<section id="bulk-confirmation"')
    assert 'hx-post="/orders/bulk/" hx-swap="none"' in html and "Yes, cancel 2 orders" in html
    assert re.search(r'data-order-id="gone"><td>gone</td><td>no such order</td>', html)  # said, not hidden
    assert statuses(pending) == ["PENDING"] * 3
    page = packer.get("/orders/?status=PENDING").content.decode()
    assert page.index('<div id="bulk-confirm">') < page.index('id="bulk-form"')  # outside the bulk form

    done = bulk(packer, {"action": "cancel", "status": "PENDING", "order": [pending[2]], "confirm": "yes"}, htmx=True)
    html = done.content.decode()
    assert done.status_code == 200 and '<div id="bulk-confirm" hx-swap-oob="true"></div>' in html
    assert statuses(pending) == ["PENDING", "PENDING", "CANCELLED"]


def test_ship_and_deliver_need_no_confirmation_and_confirm_takes_only_yes(packer: Client, pending: list[str]) -> None:
    assert bulk(packer, {"action": "ship", "order": [pending[0]]}, htmx=True).status_code == 200
    assert statuses(pending)[0] == "SHIPPED"
    refused = bulk(packer, {"action": "cancel", "order": [pending[1]], "confirm": "sure"}, htmx=False)
    assert refused.status_code == 400 and statuses(pending)[1] == "PENDING"


@pytest.mark.parametrize("action", ["ship", "cancel", "deliver"])
def test_an_empty_selection_says_so_where_the_outcome_goes(packer: Client, shop_table: str, action: str) -> None:
    swapped = bulk(packer, {"action": action, "status": "PENDING"}, htmx=True)
    assert swapped.status_code == 400
    assert swapped["HX-Retarget"] == "#bulk-summary" and swapped["HX-Reswap"] == "innerHTML"
    html = swapped.content.decode()
    assert '<div class="alert" role="alert" data-status="400">select at least one order</div>' in html
    assert "<html" not in html

    page = bulk(packer, {"action": action, "status": "SHIPPED"}, htmx=False)
    assert page.status_code == 400
    html = page.content.decode()
    assert f"<h1>Bulk {action}: nothing done</h1>" in html
    assert '<div class="alert" role="alert" id="bulk-problem" data-status="400">Select at least one order</div>' in html
    assert '<a href="/orders/?status=SHIPPED">Back to the shipped orders</a>' in html


def test_any_refused_selection_is_shown_in_place(packer: Client, shop_table: str) -> None:
    for data in ({"action": "melt", "order": "o1"}, {"action": "ship", "order": "bad id!"}):
        response = bulk(packer, data, htmx=True)
        assert response.status_code == 400 and response["HX-Retarget"] == "#bulk-summary"


def test_a_bulk_cancel_keeps_its_reason_on_each_order_and_an_unknown_reason_changes_nothing(
    packer: Client, pending: list[str]
) -> None:
    chosen = {"action": "cancel", "status": "PENDING", "order": pending[:2], "confirm": "yes"}
    refused = bulk(packer, chosen | {"reason": "boredom"}, htmx=False)
    assert refused.status_code == 400 and "not one of the available choices" in refused.content.decode()
    unexplained = bulk(packer, chosen | {"reason": "other", "reason_text": "  "}, htmx=False)
    assert unexplained.status_code == 400 and statuses(pending) == ["PENDING"] * 3
    # when the reason is one of the list
    done = bulk(packer, chosen | {"reason": "stock"}, htmx=False)
    # then every cancelled order keeps it, and its audit entry says it
    assert done.status_code == 200 and statuses(pending) == ["CANCELLED", "CANCELLED", "PENDING"]
    for oid in pending[:2]:
        collection = orders.order_collection(oid)
        assert collection.order.cancel_reason == "out of stock"
        assert [e.detail for e in collection.history if e.action == "cancel"] == ["reason: out of stock"]
