"""The numbers kept by the sync equal what a scan of the shop table implies, after duplicates, replays, a crash
between any two steps, and rebuilds (DynamoDB Local)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from adminview.core import numbers, schema
from adminview.core.sources.shop import OrderState
from adminview.reads import number_reads
from adminview.repair import rebuild
from adminview.sync import apply
from adminview.sync.poller import Poller
from adminview.tables import ViewItem
from dynamo import ddb_json
from dynamo.client import client_of
from shop import editing, orders
from shop.audit import Actor
from shop.models import ShopItem
from shop.orders import OrderLine
from tests import factories
from tests.adminview.figures_oracle import assert_figures_match
from tests.adminview_helpers import sync_now

CATEGORIES = ["Books", "Kitchen", None]  # a product without a category counts as "uncategorized"


def _image(**attrs: str) -> dict[str, Any]:
    """A stream image as the sync hands it to the core: decoded into plain values."""
    return dict(attrs)


def _sums(order_id: str, sources: dict[str, dict[str, Any]]) -> numbers.Sums:
    state = OrderState.read(schema.order_anchor(order_id), None)
    for sk, image in sources.items():
        state.apply(sk, image)
    return state.sums()


def test_an_order_contributes_its_lines_unless_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    sources = {
        "c#1": _image(EntityType="order", Status="PENDING", Date="2026-03-04T10:00:00"),
        "p#7": _image(EntityType="orderItem", Quantity="2", Price="10.25", Category="Books"),
        "p#8": _image(EntityType="orderItem", Quantity="1"),  # no price, no category
    }
    monkeypatch.setenv("ADMIN_VIEW_SUM_SHARDS", "1")
    placed = _sums("1", sources)
    assert placed[schema.status_counts(0)] == {"PENDING": 1}
    day = placed[schema.day_sums(0, "2026-03-04")]
    assert day == {
        "Orders": 1,
        "Units": 3,
        "Revenue": Decimal("20.50"),
        "Units:Books": 2,
        "Revenue:Books": Decimal("20.50"),
        "Units:uncategorized": 1,
    }
    assert placed[schema.product_month_sums("7", 0, "2026-03")] == {"Units": 2, "Revenue": Decimal("20.50")}
    assert placed[schema.buyers("7", "1")] == {"Orders": 1}  # the customer is one buyer of each product

    cancelled = _sums(
        "1", {**sources, "c#1": _image(EntityType="order", Status="CANCELLED", Date="2026-03-04T10:00:00")}
    )
    change = numbers.difference(placed, cancelled)
    assert change[schema.status_counts(0)] == {"PENDING": -1, "CANCELLED": 1}
    assert change[schema.day_sums(0, "2026-03-04")]["Cancelled"] == 1
    assert change[schema.day_sums(0, "2026-03-04")]["Units"] == -3
    assert change[schema.buyers("7", "1")] == {"Orders": -1}  # a cancelled order counts for no buyer
    assert numbers.difference(placed, placed) == {}  # a replay adds nothing
    key = schema.counted(schema.order_anchor("1"))
    stored = numbers.read_counted(key, numbers.counted_item(key, placed, rev=1))
    assert stored.sums == placed and stored.rev == 1


@pytest.fixture
def nine_placed_orders(shop_table: str, admin_view_table: str) -> list[str]:
    factories.shop_with(customers=3, products=4, stock_each=10_000, categories=CATEGORIES)
    placed = []
    for n in range(9):
        lines = [OrderLine(f"200{1 + n % 4}", 1 + n % 3), OrderLine(f"200{1 + (n + 1) % 4}", 1)]
        when = datetime(2026, 3, 1 + n % 3, 12, tzinfo=UTC)
        placed.append(
            orders.order_place(customer_id=f"100{1 + n % 3}", lines=lines, order_id=f"f{n}", placed_at=when).order_id
        )
    return placed


@pytest.mark.ddb_local
def test_figures_follow_orders_through_their_life(nine_placed_orders: list[str]) -> None:
    sync_now()
    assert_figures_match()
    orders.order_ship(order_id=nine_placed_orders[0])
    orders.order_deliver(order_id=nine_placed_orders[0])
    orders.order_cancel(order_id=nine_placed_orders[1])
    sync_now()
    assert_figures_match()
    counts = number_reads.status_counts()
    assert counts == {"PENDING": 7, "SHIPPED": 0, "DELIVERED": 1, "CANCELLED": 1}


@pytest.mark.ddb_local
def test_replays_and_duplicates_count_nothing_twice(nine_placed_orders: list[str]) -> None:
    sync_now()
    Poller.for_sources(replay=True).run(follow=False)  # every record again
    Poller.for_sources(replay=True).run(follow=False)
    assert_figures_match()


@pytest.mark.ddb_local
def test_a_crash_before_the_anchors_are_written_loses_and_doubles_nothing(
    nine_placed_orders: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = apply._write_anchors

    def crash(*_: Any) -> set[Any]:
        raise RuntimeError("killed between the view items' write and the anchors' (simulated)")

    monkeypatch.setattr(apply, "_write_anchors", crash)
    sync_now(sleep=lambda _s: None)  # every record fails, is dead-lettered and skipped past
    monkeypatch.setattr(apply, "_write_anchors", real)
    Poller.for_sources(replay=True).run(follow=False)  # the records again, as a restarted sync reads them
    assert_figures_match()


@pytest.mark.ddb_local
def test_verify_names_a_damaged_counter_and_rebuild_fixes_it(
    nine_placed_orders: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sync_now()
    monkeypatch.setattr("adminview.repair.view_pass.COUNTER_CLOCK_MARGIN_S", 0.0)  # one host: no clocks to disagree
    client, table = client_of(ViewItem), str(ViewItem.Meta.table_name)
    pk, sk = schema.day_sums(schema.sum_shard(schema.order_anchor(nine_placed_orders[0])), "2026-03-01")
    client.update_item(
        TableName=table,
        Key=ddb_json.key(pk, sk),
        UpdateExpression="ADD Units :u",
        ExpressionAttributeValues={":u": ddb_json.n(5)},
    )
    found = rebuild.verify(settle_s=0)
    assert not found.clean and (pk, sk) in found.examples["differing"]
    fixed = rebuild.rebuild()
    assert fixed.differing == 1 and fixed.written == 1
    assert rebuild.verify(settle_s=0).clean
    assert_figures_match()


@pytest.mark.ddb_local
def test_rebuild_counts_orders_the_view_had_not_counted(nine_placed_orders: list[str]) -> None:
    """An older view (nothing counted: no ``#counted`` items, no counters): the rebuild adds every order's figures."""
    sync_now()
    client, table = client_of(ViewItem), str(ViewItem.Meta.table_name)
    from adminview.repair.table_walk import parallel_scan

    for item in parallel_scan(ViewItem):
        if schema.is_sum((item["PK"], item["SK"])) or item.get("Kind") == schema.COUNTED:
            client.delete_item(TableName=table, Key=ddb_json.key(item["PK"], item["SK"]))
    assert number_reads.status_counts()["PENDING"] == 0
    assert not rebuild.verify(settle_s=0).clean
    rebuild.rebuild()
    assert rebuild.verify(settle_s=0).clean
    assert_figures_match()


@pytest.mark.ddb_local
def test_a_categorys_orders_by_date_newest_first_in_pages(nine_placed_orders: list[str]) -> None:
    from datetime import date

    from adminview.reads import selectors

    orders.order_cancel(order_id=nine_placed_orders[0])
    sync_now()
    books = [f"f{n}" for n in range(9) if {"2001", "2004"} & {f"200{1 + n % 4}", f"200{1 + (n + 1) % 4}"}]
    seen, after = [], None
    while True:
        page = selectors.category_orders(
            category="Books", start=date(2026, 3, 1), end=date(2026, 3, 3), limit=2, after=after
        )
        seen += page.rows
        if page.next is None:
            break
        after = page.next
    assert sorted(r.order_id for r in seen) == sorted(books)
    assert [r.position for r in seen] == sorted((r.position for r in seen), reverse=True)
    cancelled = next(r for r in seen if r.order_id == nine_placed_orders[0])
    assert cancelled.status == "CANCELLED" and cancelled.units >= 1 and cancelled.revenue > 0
    one_day = selectors.category_orders(category="Books", start=date(2026, 3, 2), end=date(2026, 3, 2))
    assert {r.date.date() for r in one_day.rows if r.date} <= {date(2026, 3, 2)} and one_day.rows


def test_a_running_sum_is_added_to_in_place_and_merge_leaves_its_parts_alone() -> None:
    day, status = schema.day_sums(0, "2024-05-01"), schema.status_counts(0)
    first: numbers.Deltas = {day: {schema.UNITS: Decimal(2)}}
    second: numbers.Deltas = {day: {schema.UNITS: Decimal(3)}, status: {"PENDING": Decimal(1)}}
    merged = numbers.add_into({}, [first, second])
    assert merged == {day: {schema.UNITS: Decimal(5)}, status: {"PENDING": Decimal(1)}}
    assert first == {day: {schema.UNITS: Decimal(2)}}  # parts are never aliased into the sum
    total: numbers.Deltas = {}
    assert numbers.add_into(total, [first]) is total
    numbers.add_into(total, [second])
    assert total == merged and first[day] == {schema.UNITS: Decimal(2)}


def test_the_catalogues_categories_are_counted_as_products_join_and_leave_them(
    shop_table: str, admin_view_table: str
) -> None:
    # given products in two categories (one spelled with spaces around it) and one without
    factories.product("2001", category="Garden")
    factories.product("2002", category=" Books ")
    factories.product("2003", category="garden")
    factories.product("2004")
    sync_now()
    assert number_reads.categories() == ["Books", "Garden", "garden"]
    # when the only Books product moves to Garden and a garden one is deleted
    _move_category("2002", "Garden")
    client_of(ShopItem).delete_item(TableName=str(ShopItem.Meta.table_name), Key=ddb_json.key("p#2003", "p#2003"))
    sync_now()
    # then the categories follow, and verify finds the counts exact
    assert number_reads.categories() == ["Garden"]
    assert rebuild.verify(settle_s=0).clean


def _move_category(product_id: str, category: str) -> None:
    seen = editing.snapshot(editing.product_target(product_id))
    editing.product_edit(
        product_id=product_id,
        seen=seen,
        name=seen.values["Detail.Name"],
        description=seen.values["Detail.Description"],
        price=seen.values["Price"],
        category=category,
        actor=Actor("ann"),
    )
