"""A customer's orders on their page (``/customers/<cid>/``) on DynamoDB Local with the real admin view: sorted,
within a range of order dates, their 400s and cursors, how long each order has waited, the CSV with the
customer's name and email, and the customer's totals (``format=json``)."""

from __future__ import annotations

import io
import re
import uuid
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from adminview.repair import rebuild
from dynamo.client import client_of
from returns import services
from returns.access_patterns import money_of_order
from returns.models import ReturnsItem
from shop import order_status, orders
from shop.order_reads import order_collection
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows, load_more

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]


@pytest.fixture
def placed(shop_table: str, admin_view_table: str) -> list[str]:
    """Customer 1001's four orders, one a day from 1 to 4 March 2026, oldest first."""
    factories.shop_with(customers=1, products=1)
    tag = uuid.uuid4().hex[:6]
    ids = []
    for n in range(4):
        oid = f"c{n}-{tag}"
        orders.order_place(
            customer_id="1001", lines=[OrderLine("2001", 1)], placed_at=datetime(2026, 3, 1 + n, 9), order_id=oid
        )
        ids.append(oid)
    sync_now()
    return ids


def shown(response: Any) -> list[str]:
    assert response.status_code == 200, response.content[:300]
    return re.findall(r'<tr class="order-row" data-order-id="([^"]+)"', response.content.decode())


def test_a_customers_orders_newest_or_oldest_first_within_a_range(staff: Client, placed: list[str]) -> None:
    assert shown(staff.get("/customers/1001/")) == list(reversed(placed))
    assert shown(staff.get("/customers/1001/?sort=oldest")) == placed
    assert shown(staff.get("/customers/1001/?sort=oldest&from=2026-03-02&to=2026-03-03")) == placed[1:3]
    html = staff.get("/customers/1001/?to=2026-03-01").content.decode()
    assert "Ada Lovelace" in html and shown(staff.get("/customers/1001/?to=2026-03-01")) == placed[:1]
    assert len(re.findall(r'<td class="num">\d+ d \d+ h</td>', html)) == 1  # how long it has waited


def test_load_more_keeps_the_sort_and_a_cursor_is_refused_on_another(staff: Client, placed: list[str]) -> None:
    first = staff.get("/customers/1001/?sort=oldest&limit=3")
    more = load_more(first)
    assert more is not None
    assert shown(first) + shown(staff.get(more, headers={"HX-Request": "true"})) == placed
    assert staff.get(more.replace("sort=oldest", "sort=newest")).status_code == 400
    assert staff.get(more + "&from=2026-03-01").status_code == 400


@pytest.mark.parametrize("query", ["sort=up", "from=March", "from=2026-03-04&to=2026-03-01"])
def test_a_bad_sort_or_date_is_400_with_the_profile_and_the_error_in_place(
    staff: Client, placed: list[str], query: str
) -> None:
    response = staff.get(f"/customers/1001/?{query}")
    html = response.content.decode()
    assert response.status_code == 400
    assert "Ada Lovelace" in html and 'id="filter-errors"' in html and 'class="order-row"' not in html
    export = staff.get(f"/customers/1001/?{query}&format=csv")
    assert export.status_code == 400 and not export["Content-Type"].startswith("text/csv")
    assert staff.get(f"/customers/9999/?{query}").status_code == 404


def test_the_csv_in_the_lists_order_with_the_customers_name_and_email(staff: Client, placed: list[str]) -> None:
    rows = csv_rows(staff.get("/customers/1001/?format=csv&sort=oldest&from=2026-03-02"))
    header = rows[0]
    assert header[0] == "order_id" and {"date", "customer_name", "customer_email"} <= set(header)
    assert [r[0] for r in rows[1:]] == placed[1:]
    first = dict(zip(header, rows[1], strict=True))
    assert (first["customer_name"], first["customer_email"]) == ("Ada Lovelace", "c1001@example.com")


# --- a customer's totals (``format=json``): kept by the sync, exact after a replay, a rebuild and a backfill -------


def _foreign_refund(order_id: str, amount: str) -> None:
    """A refund another service put into the returns table in the contract's shape: no ``CustomerId``."""
    client_of(ReturnsItem).put_item(
        TableName=str(ReturnsItem.Meta.table_name),
        Item={
            "PK": {"S": "o#" + order_id},
            "SK": {"S": "f#elsewhere"},
            "EntityType": {"S": "refund"},
            "Amount": {"S": amount},
            "Date": {"S": "2026-03-06T10:00:00"},
            "Reference": {"S": "PSP-9"},
        },
    )


def _from_the_tables(order_ids: list[str], *, named_only: bool = True) -> dict[str, Any]:
    """The totals as the shop and returns tables imply them (read there, not in the view)."""
    placed = [order_collection(oid).order for oid in order_ids]
    spent = sum((o.total or Decimal(0) for o in placed if o.status != "CANCELLED"), Decimal(0))
    refunds = [r for oid in order_ids for r in money_of_order(order_id=oid, consistent=True)[1]]
    refunded = sum((r.amount for r in refunds if r.amount and (r.customer_id or not named_only)), Decimal(0))
    days = sorted(o.date.date().isoformat() for o in placed if o.date)
    paid = sum((order_status.paid(order_collection(oid).invoices) for oid in order_ids), Decimal(0))
    return {
        "customer_id": "1001",
        "orders": len(placed),
        "spent": f"{spent:.2f}",
        "refunded": f"{refunded:.2f}",
        "first_order": days[0],
        "last_order": days[-1],
        "paid": f"{paid:.2f}",
    }


def test_a_customers_totals_follow_the_sync_and_stay_exact_after_a_replay_a_rebuild_and_a_backfill(
    staff: Client, shop_table: str, admin_view_table: str, checkpoint_table: str
) -> None:
    # given customer 1001's four orders (paid by card when placed): one delivered with a return refunded, one
    # cancelled, one cancelled with the refund of what it paid, one pending with a refund another service wrote
    factories.shop_with(customers=2, products=2)
    tag = uuid.uuid4().hex[:6]
    ids = [f"t{n}-{tag}" for n in range(4)]
    for n, (oid, quantity) in enumerate(zip(ids, (2, 1, 1, 1), strict=True)):
        orders.order_place(
            customer_id="1001", lines=[OrderLine("2001", quantity)], placed_at=datetime(2026, 3, 1 + n, 9), order_id=oid
        )
    orders.order_ship(order_id=ids[0], shipped_at=datetime(2026, 3, 2, 9))
    orders.order_deliver(order_id=ids[0])
    services.return_request(order_id=ids[0], lines=[services.Line("2001", 2, "Arrived damaged")], return_id=tag)
    services.return_approve(return_id=tag)
    services.return_receive(return_id=tag, warehouse_id="301")
    services.return_refund(return_id=tag, amount="10.00", reference="PSP-1")
    orders.order_cancel(order_id=ids[1])
    services.order_cancel_with_refund(order_id=ids[2])
    _foreign_refund(ids[3], "1.00")

    # when the sync has run
    assert sync_now().dead_lettered == 0
    response = staff.get("/customers/1001/?format=json")

    # then the totals are what the tables imply: 4 orders, 21.00 + 10.50 spent, 10.00 + 10.50 refunded (the refund
    # without a customer counts nowhere but its day)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response["X-DynamoDB-Calls"] == "1"  # one Query of the customer's view partition
    totals = response.json()
    assert (
        totals
        == _from_the_tables(ids)
        == {
            "customer_id": "1001",
            "orders": 4,
            "spent": "31.50",
            "refunded": "20.50",
            "first_order": "2026-03-01",
            "last_order": "2026-03-04",
            "paid": "52.50",
        }
    )
    # and a replay of every record, then a rebuild, change nothing; verify finds the view clean
    sync_now(replay=True)
    assert staff.get("/customers/1001/?format=json").json() == totals
    rebuild.rebuild()
    assert staff.get("/customers/1001/?format=json").json() == totals
    assert rebuild.verify(settle_s=0).clean

    # when the backfill gives the other service's refund its order's customer and the sync follows
    call_command("backfill", "refund-customer", "--no-progress", stdout=io.StringIO())
    sync_now()

    # then it counts too, and the view is still exact
    assert staff.get("/customers/1001/?format=json").json() == _from_the_tables(ids, named_only=False)
    assert staff.get("/customers/1001/?format=json").json()["refunded"] == "21.50"
    assert rebuild.verify(settle_s=0).clean

    # and the page shows the same figures, money as every page shows it
    html = staff.get("/customers/1001/").content.decode()
    totals_html = html.split('id="customer-totals"', 1)[1].split("</dl>", 1)[0]
    assert all(text in totals_html for text in ("<dd>4</dd>", "$31.50", "$21.50", "2026-03-01", "2026-03-04"))

    # and a customer without orders has zeros and no dates, an unknown one is a 404, a bad format a 400
    assert staff.get("/customers/1002/?format=json").json() == {
        "customer_id": "1002",
        "orders": 0,
        "spent": "0.00",
        "refunded": "0.00",
        "first_order": None,
        "last_order": None,
        "paid": "0.00",
    }
    assert "—" in staff.get("/customers/1002/").content.decode().split('id="customer-totals"', 1)[1]
    unknown = staff.get("/customers/9999/?format=json")
    assert unknown.status_code == 404 and "error" in unknown.json()
    assert staff.get("/customers/1001/?format=xml").status_code == 400
