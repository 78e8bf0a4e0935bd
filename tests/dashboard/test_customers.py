"""A customer's orders on their page (``/customers/<cid>/``) on DynamoDB Local with the real admin view: sorted,
within a range of order dates, their 400s and cursors, how long each order has waited, and the CSV with the
customer's name and email."""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Any

import pytest
from django.test import Client

from shop import orders
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
