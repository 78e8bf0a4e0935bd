"""Every access pattern on generated data against DynamoDB Local: the right items, in key order, the same
whatever the page size (no duplicates, no gaps), including pages cut by DynamoDB's 1 MB limit."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from dynamo.batch import batch_write, put_request
from dynamo.client import client_of
from dynamo.paging import all_items, raw_items
from dynamo.tables import delete_table
from shop import access_patterns as ap
from shop import seeding
from shop.models import SHOP_TABLE, Invoice, ShopItem
from tests.conftest import fresh_table

# Enough orders that the busiest subjects' lists and date ranges span several pages of 7
CONFIG = seeding.SeedConfig(customers=25, products=15, warehouses=3, orders=150, seed=7)


@pytest.fixture(scope="module")
def seeded(ddb_local: Any) -> Iterator[list[dict[str, Any]]]:
    """One seeded table for the module, plus every raw item (a test-only Scan) to compute what each pattern
    must return."""
    original = SHOP_TABLE.model.Meta.table_name
    name = fresh_table(SHOP_TABLE, "OnlineShop-generated")
    try:
        seeding.run(seeding.plan(CONFIG), workers=4)
        yield list(raw_items(client_of(ShopItem), "scan", TableName=name))
    finally:
        delete_table(SHOP_TABLE.model)
        SHOP_TABLE.model.Meta.table_name = original


def s(item: dict[str, Any], name: str) -> str:
    """A string attribute of a raw item ("" when absent)."""
    return str(item.get(name, {}).get("S", ""))


def keys(items: list[Any]) -> list[tuple[str, str]]:
    return [(i.pk, i.sk) for i in items]


def expect(raw: list[dict[str, Any]], where: Callable[[dict[str, Any]], bool], sort_by: str) -> list[tuple[str, str]]:
    chosen = [i for i in raw if where(i)]
    chosen.sort(key=lambda i: (s(i, sort_by), s(i, "PK"), s(i, "SK")))
    return [(s(i, "PK"), s(i, "SK")) for i in chosen]


def same_in_index_order(
    got: list[tuple[str, str]], expected: list[tuple[str, str]], raw: list[dict[str, Any]], sort_key: str
) -> bool:
    """Index queries order by the index sort key; among equal sort keys DynamoDB's order is its own."""
    by_key = {(s(i, "PK"), s(i, "SK")): s(i, sort_key) for i in raw}
    sort_values = [by_key[k] for k in got]
    return sorted(got) == sorted(expected) and sort_values == sorted(sort_values)


def paged_equal(fetch: Callable[..., Any], **kwargs: Any) -> list[tuple[str, str]]:
    """All items with big pages == all items with pages of 7; returns them."""
    big = keys(list(all_items(fetch, page_size=1000, **kwargs)))
    small = keys(list(all_items(fetch, page_size=7, **kwargs)))
    assert small == big
    assert len(set(big)) == len(big)
    return big


def busiest(raw: list[dict[str, Any]], attribute: str, prefix: str) -> str:
    counts: dict[str, int] = {}
    for item in raw:
        value = s(item, attribute)
        if value and value.startswith(prefix):
            counts[value] = counts.get(value, 0) + 1
    return max(counts, key=lambda k: counts[k])


def test_entities_by_id(seeded: list[dict[str, Any]]) -> None:
    customer = ap.customer_by_id(customer_id="100001")
    product = ap.product_by_id(product_id="p#20001")
    warehouse = ap.warehouse_by_id(warehouse_id="301")
    assert customer is not None and customer.name
    assert product is not None and product.price is not None
    assert warehouse is not None and warehouse.name
    assert ap.customer_by_id(customer_id="999") is None
    assert ap.product_by_id(product_id="100001") is None  # no such product (that id is a customer's)


def test_table_collections(seeded: list[dict[str, Any]]) -> None:
    pid = busiest(seeded, "PK", "p#")
    assert paged_equal(ap.inventory_for_product, product_id=pid) == expect(
        seeded, lambda i: s(i, "PK") == pid and s(i, "SK").startswith("w#"), "SK"
    )
    oid = busiest(seeded, "PK", "o#")
    assert paged_equal(ap.order_details, order_id=oid) == expect(seeded, lambda i: s(i, "PK") == oid, "SK")
    assert paged_equal(ap.order_items, order_id=oid) == expect(
        seeded, lambda i: s(i, "PK") == oid and s(i, "SK").startswith("p#"), "SK"
    )
    assert paged_equal(ap.invoices_for_order, order_id=oid) == expect(
        seeded, lambda i: s(i, "PK") == oid and s(i, "SK").startswith("i#"), "SK"
    )
    shipped = next(s(i, "PK") for i in seeded if s(i, "EntityType") == "shipment")
    assert paged_equal(ap.shipments_for_order, order_id=shipped) == expect(
        seeded, lambda i: s(i, "PK") == shipped and s(i, "SK").startswith("sh#"), "SK"
    )


def test_gsi1_patterns(seeded: list[dict[str, Any]]) -> None:
    pid = busiest(seeded, "GSI1-PK", "p#")
    got = paged_equal(ap.order_items_for_product, product_id=pid, start="2025-06-01", end="2026-03-31")
    assert got and same_in_index_order(
        got,
        expect(
            seeded,
            lambda i: s(i, "GSI1-PK") == pid and "2025-06-01" <= s(i, "GSI1-SK") <= "2026-03-31T23:59:59",
            "GSI1-SK",
        ),
        seeded,
        "GSI1-SK",
    )
    invoice = next(i for i in seeded if s(i, "EntityType") == "invoice")
    iid = s(invoice, "GSI1-PK")
    found = ap.invoice_by_id(invoice_id=iid)
    assert found is not None and found.key == (s(invoice, "PK"), s(invoice, "SK"))
    payments = found.payments  # pattern 11 reads the invoice of pattern 10: its payments are the seeded ones
    seeded_payments = Invoice.from_raw_data(invoice).payments
    assert payments and [p.attribute_values for p in payments] == [p.attribute_values for p in seeded_payments]
    assert ap.invoice_by_id(invoice_id="nope") is None
    sid = busiest(seeded, "GSI1-PK", "sh#")
    assert same_in_index_order(
        paged_equal(ap.shipment_details, shipment_id=sid),
        expect(seeded, lambda i: s(i, "GSI1-PK") == sid, "GSI1-SK"),
        seeded,
        "GSI1-SK",
    )


def test_gsi2_patterns(seeded: list[dict[str, Any]]) -> None:
    wid = busiest(seeded, "GSI2-PK", "w#")

    def gsi2(prefix: str, partition: str) -> list[tuple[str, str]]:
        return expect(seeded, lambda i: s(i, "GSI2-PK") == partition and s(i, "GSI2-SK").startswith(prefix), "GSI2-SK")

    shipments = paged_equal(ap.shipments_for_warehouse, warehouse_id=wid)
    assert shipments and same_in_index_order(shipments, gsi2("sh#", wid), seeded, "GSI2-SK")
    stock = paged_equal(ap.inventory_for_warehouse, warehouse_id=wid)
    assert stock and same_in_index_order(stock, gsi2("p#", wid), seeded, "GSI2-SK")
    cid = busiest(seeded, "GSI2-PK", "c#")
    invoices = paged_equal(ap.invoices_for_customer, customer_id=cid, start="2024-11-01", end="2026-11-01")
    assert invoices and same_in_index_order(invoices, gsi2("i#", cid), seeded, "GSI2-SK")
    products = paged_equal(ap.order_items_for_customer, customer_id=cid, start="2024-11-01", end="2026-11-01")
    assert products and same_in_index_order(products, gsi2("p#", cid), seeded, "GSI2-SK")
    newest = ap.invoices_for_customer(customer_id=cid, start="2024-11-01", end="2026-11-01", newest_first=True)
    assert keys(newest.items) == invoices[::-1][: len(newest.items)]


def test_date_bounds_are_inclusive(seeded: list[dict[str, Any]]) -> None:
    invoice = next(i for i in seeded if s(i, "EntityType") == "invoice")
    day = s(invoice, "Date")[:10]
    cid = s(invoice, "GSI2-PK")
    found = keys(ap.invoices_for_customer(customer_id=cid, start=day, end=day).items)
    assert (s(invoice, "PK"), s(invoice, "SK")) in found
    exact = s(invoice, "Date")
    assert (s(invoice, "PK"), s(invoice, "SK")) in keys(
        ap.invoices_for_customer(customer_id=cid, start=exact, end=exact).items
    )


def test_pages_past_one_megabyte(shop_table: str) -> None:
    """150 stock records of ~10 KB each under one product and one warehouse: > 1 MB for both the table
    query (pattern 4) and the GSI2 query (pattern 14); every item comes back once, in order."""
    pad = "x" * 10_000
    raw = [
        {
            "PK": {"S": "p#big"},
            "SK": {"S": f"w#{n:04d}"},
            "EntityType": {"S": "warehouseItem"},
            "GSI2-PK": {"S": "w#hub"},
            "GSI2-SK": {"S": f"p#{n:04d}"},
            "Quantity": {"S": str(n)},
            "Padding": {"S": pad},
        }
        for n in range(150)
    ]
    batch_write(client_of(ShopItem), shop_table, (put_request(r) for r in raw), key_names=("PK", "SK"))
    by_product = list(all_items(ap.inventory_for_product, product_id="big"))
    assert [i.quantity for i in by_product] == list(range(150))
    one_page = ap.inventory_for_product(product_id="big", limit=1000)
    assert len(one_page.items) == 150 and one_page.next_key is None  # DynamoDB's 1 MB pages, followed
    by_warehouse = list(all_items(ap.inventory_for_warehouse, warehouse_id="hub", page_size=40))
    assert [i.quantity for i in by_warehouse] == list(range(150))


@pytest.mark.parametrize(
    "bad",
    [
        lambda: ap.customer_by_id(customer_id="o#1"),
        lambda: ap.order_details(order_id="a b"),
        lambda: ap.invoices_for_customer(customer_id="1", start="2020-13-01", end="2020-12-31"),
        lambda: ap.invoices_for_customer(customer_id="1", start="2021-01-02", end="2021-01-01"),
        lambda: ap.order_items_for_product(product_id="1", start="yesterday", end="2021-01-01"),
        lambda: ap.order_items(order_id="1", limit=0),
    ],
)
def test_bad_arguments_raise_value_error_before_any_call(bad: Callable[[], Any]) -> None:
    from dynamo.instrumentation import recording

    with recording() as log, pytest.raises(ValueError):
        bad()
    assert log.count == 0
