"""The ``order-item-category`` backfill against DynamoDB Local: order items written before categories get their
product's, items of a product without one are left as they are, a dry run writes nothing, a second run changes
nothing, and each product is read once per run."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO
from typing import Any

from django.core.management import call_command

from dynamo import backfill, ddb_json
from dynamo.client import client_of
from dynamo.instrumentation import recording
from dynamo.paging import raw_items
from shop import catalog, migrations
from shop.models import Payment, ShopItem
from shop.order_builders import PricedLine, build_placement
from tests.shop import legacy


def _order_items() -> dict[str, dict[str, Any]]:
    """Every order item, by ``<order id>/<product id>``."""
    found = raw_items(
        client_of(ShopItem),
        "scan",
        TableName=str(ShopItem.Meta.table_name),
        FilterExpression="EntityType = :t",
        ExpressionAttributeValues={":t": ddb_json.s("orderItem")},
    )
    return {f"{i['PK']['S'][2:]}/{i['SK']['S'][2:]}": i for i in found}


def _given_legacy_orders() -> None:
    """Products 1 (Books) and 2 (Kitchen) and 3 (no category); product 4 is not in the table. Orders L1..L4 each
    have one line of product n, written without ``Category``; order N5 has a line of product 1 written with one."""
    legacy.write(
        iter(
            [
                catalog.new_product(product_id="1", name="Atlas", price="10", category="Books"),
                catalog.new_product(product_id="2", name="Pan", price="20", category=" Kitchen "),
                catalog.new_product(product_id="3", name="Thing", price="5"),
            ]
        )
    )
    placed: list[ShopItem] = []
    lines = [("L1", "1", None), ("L2", "2", None), ("L3", "3", None), ("L4", "4", None), ("N5", "1", "Poetry")]
    for oid, pid, category in lines:
        line = PricedLine(pid, 2, Decimal("10.00"), f"Product {pid}", "301", category)
        order, items, invoice = build_placement(
            order_id=oid,
            invoice_id=oid,
            customer_id="1001",
            lines=[line],
            payments=[Payment(type="Card", amount=Decimal("20.00"))],
            placed_at=legacy.placed_at(1),
        )
        placed += [order, *items, invoice]
    legacy.write(iter(placed))


def test_order_items_get_their_products_category_once(shop_table: str, checkpoint_table: str) -> None:
    _given_legacy_orders()

    dry = backfill.run(migrations.order_item_category(), segments=2, dry_run=True)
    assert (dry.candidates, dry.would_change, dry.unresolved, dry.changed) == (4, 2, 2, 0)
    assert not any("Category" in i for k, i in _order_items().items() if k != "N5/1")

    report = backfill.run(migrations.order_item_category(), segments=2)
    assert (report.candidates, report.changed, report.unresolved, report.skipped) == (4, 2, 2, 0)
    assert report.write_units > 0 and report.read_units > 0
    categories = {k: ddb_json.string(i, "Category") for k, i in _order_items().items()}
    assert categories == {"L1/1": "Books", "L2/2": "Kitchen", "L3/3": None, "L4/4": None, "N5/1": "Poetry"}

    again = backfill.run(migrations.order_item_category(), segments=2, start_over=True)
    assert (again.candidates, again.changed, again.unresolved) == (2, 0, 2)  # the two it cannot resolve
    assert {k: ddb_json.string(i, "Category") for k, i in _order_items().items()} == categories


def test_each_product_is_read_once_per_run_while_remembered() -> None:
    asked: list[str] = []

    def category_of(product_key: str) -> str | None:
        asked.append(product_key)
        return {"p#1": "Books"}.get(product_key)

    plan = migrations.planner_of_item_categories(category_of)
    item = {"PK": ddb_json.s("o#9"), "SK": ddb_json.s("p#1"), "EntityType": ddb_json.s("orderItem")}
    changes = [plan(item | {"PK": ddb_json.s(f"o#{n}")}) for n in range(5)]
    assert [c.add if c else None for c in changes] == [{"Category": ddb_json.s("Books")}] * 5
    assert plan(item | {"SK": ddb_json.s("p#2")}) is None and plan(item | {"SK": ddb_json.s("p#2")}) is None
    assert asked == ["p#1", "p#2"]
    assert plan(item | {"EntityType": ddb_json.s("order")}) is None and len(asked) == 2
    assert migrations.planner_of_item_categories(category_of)(item) is not None and asked[-1] == "p#1"  # new run


def test_a_product_is_read_by_key_for_its_category_alone(shop_table: str) -> None:
    legacy.write(iter([catalog.new_product(product_id="7", name="Lamp", price="30", category="Home")]))
    with recording() as log:
        assert migrations.product_category("p#7") == "Home"
        assert migrations.product_category("p#8") is None
    assert [c.operation for c in log.calls] == ["GetItem", "GetItem"]


def test_the_command_lists_and_dry_runs_it(shop_table: str, checkpoint_table: str) -> None:
    _given_legacy_orders()
    out = StringIO()
    call_command("backfill", "order-item-category", "--dry-run", "--no-progress", stdout=out)
    assert "would change 2" in out.getvalue() and "2 without a derivable value" in out.getvalue()
    assert "would set Category=Books (product 1)" in out.getvalue()
    listed = StringIO()
    call_command("backfill", "--list", stdout=listed)
    assert "order-item-category: order items without Category" in listed.getvalue()
