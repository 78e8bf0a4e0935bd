"""The bulk stock import against DynamoDB Local: a dry run reads by key and writes nothing, applying writes each
row conditioned on what the dry run showed, so rows changed in between are refused (409) and the rest done."""

from __future__ import annotations

import pytest

from dynamo.instrumentation import recording
from shop import catalog, editing, stock_import
from shop.audit import Actor
from shop.errors import InvalidInput
from shop.models import AuditEntry, Inventory, ShopItem
from shop.stock_import import MAX_ROWS, FileRefused

ANN = Actor("ann")
PRODUCTS, WAREHOUSES = 25, 10


def stocked_shop(products: int = PRODUCTS, warehouses: int = WAREHOUSES) -> None:
    """Products p0... x warehouses w0..., each holding 10 (by default 25 x 10: 250 stock rows), written in
    batches."""
    items: list[ShopItem] = [catalog.new_warehouse(warehouse_id=f"w{w}") for w in range(warehouses)]
    for p in range(products):
        items.append(catalog.new_product(product_id=f"p{p}", name=f"P{p}", price="1"))
        items += [
            catalog.new_inventory(product_id=f"p{p}", warehouse_id=f"w{w}", quantity=10) for w in range(warehouses)
        ]
    catalog.load(items)


def small_stocked_shop() -> None:
    """p0-p5 in w0, what the tests of single rows name: few items, so the shared table is handed back quickly."""
    stocked_shop(products=6, warehouses=1)


def csv_of(rows: list[tuple[str, str, str]], header: str = "product_id,warehouse_id,quantity") -> bytes:
    return ("\n".join([header, *(",".join(r) for r in rows)]) + "\n").encode()


def quantity(product_id: str, warehouse_id: str) -> int:
    return Inventory.get(f"p#{product_id}", f"w#{warehouse_id}", consistent_read=True).quantity


def test_250_rows_dry_run_then_apply_with_5_changed_in_between(shop_table: str) -> None:
    stocked_shop()
    rows = [(f"p{p}", f"w{w}", str(20 + p)) for p in range(PRODUCTS) for w in range(WAREHOUSES)]
    with recording() as log:
        plan = stock_import.dry_run(csv_of(rows))
    assert plan.errors == [] and len(plan.changed) == 250
    assert {c.operation for c in log.calls} == {"BatchGetItem"} and len(log.calls) == 3  # 285 keys, 100 a call
    assert quantity("p0", "w0") == 10  # a dry run writes nothing
    moved = [("p1", "w1"), ("p2", "w3"), ("p7", "w0"), ("p13", "w9"), ("p24", "w5")]
    for product_id, warehouse_id in moved:
        editing.stock_adjust(
            product_id=product_id, warehouse_id=warehouse_id, delta=1, reason="found", actor=Actor("bob")
        )
    outcomes = stock_import.apply(plan.changed, actor=ANN)
    refused = {(o.row.product_id, o.row.warehouse_id) for o in outcomes if o.code == 409}
    assert refused == set(moved) and all(o.now == "11" for o in outcomes if o.code == 409)
    assert sum(o.done for o in outcomes) == 245
    assert quantity("p1", "w1") == 11 and quantity("p1", "w2") == 21
    entries = [e for p in range(PRODUCTS) for e in AuditEntry.query(f"p#p{p}", AuditEntry.sk.startswith("AUDIT#"))]
    assert sum(e.action == "stock-import" and e.user == "ann" for e in entries) == 245


def test_the_dry_run_lists_every_row_error(shop_table: str) -> None:
    small_stocked_shop()
    data = csv_of(
        [
            ("p0", "w0", "10"),  # no change: planned, not applied
            ("p1", "w0", "12"),
            ("nope", "w0", "1"),
            ("p1", "w99", "1"),
            ("p2", "w0", "-1"),
            ("p3", "w0", "1.5"),
            ("p1", "w0", "13"),  # the same stock row again
            ("p4", "w0", "=1+1"),
            ("bad id!", "w0", "1"),
        ]
    )
    data += b"p5,w0\n"
    plan = stock_import.dry_run(data)
    assert [(r.line, r.before, r.after, r.changes) for r in plan.rows] == [(2, "10", 10, False), (3, "10", 12, True)]
    assert [(e.line, e.message.split(" ")[0]) for e in plan.errors] == [
        (4, "unknown"), (5, "unknown"), (6, "quantity"), (7, "quantity"), (8, "product"), (9, "quantity"),
        (10, "product"), (11, "missing"),
    ]  # fmt: skip
    assert "already on line 3" in plan.errors[4].message
    assert [o.row.line for o in stock_import.apply(plan.rows, actor=ANN)] == [3]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"product_id,quantity\np0,1\n", "lacks the column"),
        ("product_id,warehouse_id,quantity\np0,w0,1\n".encode("utf-16"), "not UTF-8"),
        (b"", "empty"),
        (b"product_id,warehouse_id,quantity\n" + b"p0,w0,1\n" * (MAX_ROWS + 1), "more than 5,000 rows"),
        (b"product_id,warehouse_id,quantity\np0,w0,\x001\n", "NUL"),
    ],
)
def test_a_file_that_is_no_stock_list_is_refused_whole(data: bytes, message: str) -> None:
    with pytest.raises(FileRefused, match=message):
        stock_import.parse(data)


def test_a_header_in_any_order_with_extra_columns_and_a_bom(shop_table: str) -> None:
    small_stocked_shop()
    plan = stock_import.dry_run("\ufeffQuantity,name,Warehouse_Id,product_id\r\n7,x,w0,p#p0\r\n".encode())
    assert [(r.product_id, r.warehouse_id, r.after) for r in plan.rows] == [("p0", "w0", 7)]


def test_apply_refuses_more_rows_than_a_file_may_hold() -> None:
    row = stock_import.PlannedRow(2, "p0", "w0", "1", 2)
    with pytest.raises(InvalidInput):
        stock_import.apply([row] * (MAX_ROWS + 1), actor=ANN)


def test_blank_lines_are_skipped_by_line_number_and_counted_as_no_row() -> None:
    data = b"\nproduct_id,warehouse_id,quantity\r\np0,w0,1\r\n,,\r\n\r\n , ,\r\np1,w0,2\r\n\r\n"
    rows, errors, skipped = stock_import.parse(data)
    assert [r.line for r in rows] == [3, 7] and errors == []
    assert skipped == [4, 5, 6, 8]  # the blank line before the header is no row


def test_applying_the_same_rows_again_writes_nothing_and_says_they_were_applied(shop_table: str) -> None:
    small_stocked_shop()
    plan = stock_import.dry_run(csv_of([("p0", "w0", "12"), ("p1", "w0", "13")]))
    first = stock_import.apply(plan.rows, actor=ANN)
    assert [(o.code, o.already, o.quantity_now) for o in first] == [(200, False, "12"), (200, False, "13")]
    editing.stock_set(
        product_id="p1", warehouse_id="w0", quantity=5, seen=editing.snapshot(editing.stock_target("p1", "w0")),
        actor=ANN,
    )  # fmt: skip
    again = stock_import.apply(plan.rows, actor=ANN)
    assert [(o.code, o.already, o.quantity_now) for o in again] == [(409, True, "12"), (409, False, "5")]
    assert quantity("p0", "w0") == 12 and quantity("p1", "w0") == 5
