"""``/customers/`` and ``/warehouses/`` on DynamoDB Local: every customer once, by name or newest first, paged and as
CSV, with calls that do not grow with the table; every warehouse once with its stock summed; 400 for a bad sort,
format or cursor; every breadcrumb a link."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from dynamo import backfill
from dynamo.client import client_of
from shop import access_patterns, catalog, keys, migrations
from shop.models import ShopItem
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows, load_more

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]

NAMES = {"100001": "Zed Zimmer", "100002": "ada Lovelace", "100003": "Émile Zola", "100004": "=Bob"}


def _customers(names: dict[str, str]) -> None:
    catalog.load([catalog.new_customer(customer_id=c, name=n, email=f"{c}@example.com") for c, n in names.items()])


@pytest.fixture
def four_customers_two_warehouses(shop_table: str, admin_view_table: str) -> None:
    _customers(NAMES)
    catalog.load(
        [
            catalog.new_warehouse(warehouse_id="301", name="North"),
            catalog.new_warehouse(warehouse_id="302"),
            catalog.new_product(product_id="p1", name="One", price="1.00"),
            catalog.new_product(product_id="p2", name="Two", price="1.00"),
            catalog.new_inventory(product_id="p1", warehouse_id="301", quantity=4),
            catalog.new_inventory(product_id="p2", warehouse_id="301", quantity=6),
        ]
    )
    sync_now()


def _ids(response: object, name: str) -> list[str]:
    return re.findall(rf'data-{name}-id="([^"]+)"', response.content.decode())  # type: ignore[attr-defined]


def _every_page(client: Client, path: str, name: str) -> list[str]:
    response = client.get(path)
    assert response.status_code == 200
    found, more = _ids(response, name), load_more(response)
    while more is not None:
        response = client.get(more, headers={"HX-Request": "true"})
        assert response.status_code == 200
        found, more = found + _ids(response, name), load_more(response)
    return found


def test_customers_by_name_then_newest_first_each_once(four_customers_two_warehouses: None, staff: Client) -> None:
    by_name = _every_page(staff, "/customers/?limit=1", "customer")
    assert by_name == ["100004", "100002", "100003", "100001"]  # =Bob, ada, Émile, Zed: case and accents ignored
    assert _every_page(staff, "/customers/?sort=newest&limit=3", "customer") == ["100004", "100003", "100002", "100001"]


def test_the_customers_csv_holds_every_customer_once(four_customers_two_warehouses: None, staff: Client) -> None:
    rows = csv_rows(staff.get("/customers/?format=csv&sort=newest"))
    assert rows[0][:3] == ["customer_id", "name", "email"]
    assert rows[1:] == [
        [c, "'" + n if n.startswith("=") else n, f"{c}@example.com"] for c, n in sorted(NAMES.items(), reverse=True)
    ]


def test_bad_parameters_are_refused(four_customers_two_warehouses: None, staff: Client) -> None:
    assert staff.get("/customers/?sort=sideways").status_code == 400
    assert staff.get("/customers/?format=pdf").status_code == 400
    assert staff.get("/customers/?cursor=abc").status_code == 400
    more = load_more(staff.get("/customers/?limit=1"))
    assert more is not None and staff.get(more.replace("sort=name", "") + "&sort=newest").status_code == 400
    assert staff.get("/warehouses/?cursor=abc").status_code == 400


def test_a_customers_page_costs_the_same_however_many_customers(
    four_customers_two_warehouses: None, staff: Client
) -> None:
    def calls() -> int:
        response = staff.get("/customers/?limit=2")
        assert response.status_code == 200
        return int(response["X-DynamoDB-Calls"])

    small = calls()
    _customers({str(200000 + n): f"Name {n}" for n in range(30)})
    sync_now()
    assert calls() == small


def test_every_warehouse_with_its_stock_summed(four_customers_two_warehouses: None, staff: Client) -> None:
    assert _every_page(staff, "/warehouses/?limit=1", "warehouse") == ["301", "302"]
    rows = csv_rows(staff.get("/warehouses/?format=csv"))
    assert rows[0][0] == "warehouse_id"
    assert rows[1:] == [["301", "North", "", "2", "10"], ["302", "", "", "0", "0"]]


def test_the_backfill_lists_a_warehouse_written_without_the_index(shop_table: str, checkpoint_table: str) -> None:
    key = keys.warehouse("w9")
    client_of(ShopItem).put_item(
        TableName=str(ShopItem.Meta.table_name),
        Item={"PK": {"S": key}, "SK": {"S": key}, "EntityType": {"S": "warehouse"}},
    )
    assert access_patterns.every_warehouse().items == []
    backfill.run(migrations.warehouse_index(), segments=1)
    assert [w.warehouse_id for w in access_patterns.every_warehouse().items] == ["w9"]


def test_every_breadcrumb_before_the_last_is_a_link() -> None:
    templates = Path(__file__).parents[2] / "dashboard" / "templates"
    plain = re.compile(r"&rsaquo; *[^<&{ ][^<&]*&rsaquo;")
    found = [p.name for p in templates.rglob("*.html") if plain.search(p.read_text())]
    assert found == []
