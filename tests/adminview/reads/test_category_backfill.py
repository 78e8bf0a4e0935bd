"""The category backfill carried into the view (DynamoDB Local): orders seeded as before categories count as
``uncategorized``; once ``order-item-category`` has given their items their products' categories and the sync has
followed, their units and revenue are counted under those categories, and every figure still equals what a scan
of the shop table implies."""

from __future__ import annotations

from collections import Counter
from datetime import date

from adminview.reads import number_reads
from dynamo import backfill, ddb_json
from dynamo.client import client_of
from shop import migrations, seeding
from shop.keys import OrderStatus
from shop.models import ShopItem
from tests.adminview.figures_oracle import assert_figures_match
from tests.adminview_helpers import sync_now

CONFIG = seeding.SeedConfig(customers=12, products=6, warehouses=2, orders=40, seed=5, uncategorized=0.5)
SPAN = (date(2025, 11, 1), date(2026, 10, 31))  # the seed's last year (orders end on 2026-11-01)


def _units_by_category() -> Counter[str]:
    units: Counter[str] = Counter()
    for row in number_reads.by_category(start=SPAN[0], end=SPAN[1]):
        units[row.category] += row.units
    return units


def _uncategorized_units(plan: seeding.SeedPlan, product_ids: set[str]) -> int:
    """Units of lines planned without a category, of orders in ``SPAN`` that are not cancelled, for the products."""
    return sum(
        line.quantity
        for order in plan.orders
        if order.status != OrderStatus.CANCELLED and SPAN[0] <= order.placed_at.date() <= SPAN[1]
        for line in order.lines
        if line.category is None and line.product_id in product_ids
    )


def test_the_backfill_moves_orders_figures_from_uncategorized_to_their_categories(
    shop_table: str, admin_view_table: str, checkpoint_table: str
) -> None:
    plan = seeding.plan(CONFIG)
    seeding.run(plan, workers=2)
    sync_now()
    before = _units_by_category()
    all_products = {line.product_id for order in plan.orders for line in order.lines}
    assert before["uncategorized"] == _uncategorized_units(plan, all_products) > 0
    assert_figures_match()

    # the product with the most lines planned without a category has none itself (as products written before
    # categories have none): its lines stay uncategorized
    legacy_lines = Counter(line.product_id for o in plan.orders for line in o.lines if line.category is None)
    bare = legacy_lines.most_common(1)[0][0]
    client_of(ShopItem).update_item(
        TableName=shop_table, Key=ddb_json.key(f"p#{bare}", f"p#{bare}"), UpdateExpression="REMOVE Category"
    )
    report = backfill.run(migrations.order_item_category(), segments=2)
    assert (report.changed, report.unresolved) == (legacy_lines.total() - legacy_lines[bare], legacy_lines[bare])
    applied = sync_now()

    after = _units_by_category()
    assert applied.applied >= report.changed
    assert after["uncategorized"] == _uncategorized_units(plan, {bare}) < before["uncategorized"]
    assert sum(after.values()) == sum(before.values())  # moved between categories, none lost or added
    assert all(after[name] >= before[name] for name in before if name != "uncategorized")
    assert_figures_match()
