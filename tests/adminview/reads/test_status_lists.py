"""The status lists on DynamoDB Local: every status has one (DELIVERED too), ``ALL`` merges them over every
(status, write shard) partition, and a view built while DELIVERED had no list is put right by a rebuild."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from adminview.core import schema
from adminview.reads import selectors
from adminview.repair import rebuild
from adminview.tables import view_client
from dynamo import ddb_json
from shop import orders
from shop.errors import InvalidInput
from shop.keys import OrderStatus
from shop.orders import OrderLine
from shop.timestamps import DateRange
from tests import factories
from tests.adminview_helpers import sync_now

T0 = datetime(2026, 2, 1, 9, 0, 0)


def _place(count: int) -> list[str]:
    """``count`` orders a minute apart, oldest first; every third one shipped, every fourth of them delivered,
    every fifth cancelled (the others stay pending)."""
    factories.shop_with(customers=3, products=1, stock_each=1_000)
    ids = []
    for n in range(count):
        oid = f"a{n:03d}"
        orders.order_place(
            customer_id=f"100{1 + n % 3}",
            lines=[OrderLine("2001", 1)],
            order_id=oid,
            placed_at=T0 + timedelta(minutes=n),
        )
        if n % 3 == 0:
            orders.order_ship(order_id=oid)
            if n % 4 == 0:
                orders.order_deliver(order_id=oid)
        elif n % 5 == 0:
            orders.order_cancel(order_id=oid)
        ids.append(oid)
    sync_now()
    return ids


def _every(status: str, *, limit: int, sort: str = selectors.NEWEST, **kwargs: Any) -> list[str]:
    """Every order of a list, read page by page from position to position."""
    seen: list[str] = []
    after = None
    while True:
        page = selectors.orders_by_status(status=status, limit=limit, after=after, sort=sort, **kwargs)
        seen += [r.order_id for r in page.rows]
        if page.next is None:
            return seen
        after = page.next


def test_a_delivered_order_is_in_the_delivered_list_and_no_other(shop_table: str, admin_view_table: str) -> None:
    # given orders in every status
    placed = _place(13)
    delivered = [oid for n, oid in enumerate(placed) if n % 12 == 0]
    # then the delivered ones are in the DELIVERED list, newest first, and out of the SHIPPED one
    assert _every(OrderStatus.DELIVERED, limit=50) == list(reversed(delivered))
    assert not set(delivered) & set(_every(OrderStatus.SHIPPED, limit=50))
    assert {r.status for r in selectors.orders_by_status(status="DELIVERED").rows} == {"DELIVERED"}


def test_all_pages_across_statuses_and_shards_without_duplicates_or_gaps(
    shop_table: str, admin_view_table: str
) -> None:
    # given a still table of orders in every status, spread over the write shards
    placed = _place(17)
    shards = schema.list_shards()
    assert len({schema.shard_of(oid, shards) for oid in placed}) == shards > 1
    by_status = {s: _every(s, limit=50) for s in schema.LISTED_STATUSES}
    assert all(by_status.values())  # every status holds some
    assert sorted(placed) == sorted(oid for ids in by_status.values() for oid in ids)
    dates = DateRange(T0.date(), T0.date())
    for limit in (1, 2, 5, 50):
        # when ALL is read page by page, each way
        # then every order comes exactly once, in date order
        assert _every(selectors.ALL, limit=limit) == list(reversed(placed))
        assert _every(selectors.ALL, limit=limit, sort=selectors.OLDEST) == placed
        # and within a range of dates (both ends included) the same
        assert _every(selectors.ALL, limit=limit, sort=selectors.OLDEST, dates=dates) == placed


def test_all_counts_new_orders_of_any_status(shop_table: str, admin_view_table: str) -> None:
    placed = _place(4)
    oldest = selectors.orders_by_status(status=selectors.ALL, sort=selectors.OLDEST, limit=1).rows[0]
    assert oldest.order_id == placed[0]
    assert selectors.new_orders_since(status=selectors.ALL, newest=oldest.position) == 3
    with pytest.raises(InvalidInput):
        selectors.orders_by_status(status="all")
    with pytest.raises(InvalidInput):
        selectors.new_orders_since(status="RETURNED", newest="")


def test_a_view_built_before_delivered_orders_were_listed_is_put_right_by_a_rebuild(
    shop_table: str, admin_view_table: str
) -> None:
    # given a delivered order whose summary is out of the status index, as the view of older code left it
    placed = _place(1)
    client, table = view_client()
    anchor = schema.order_anchor(placed[0])
    client.update_item(
        TableName=table,
        Key=ddb_json.key(*anchor),
        UpdateExpression="REMOVE #h, #r",
        ExpressionAttributeNames=dict(zip(("#h", "#r"), schema.ORDERS_BY_STATUS.key_names, strict=True)),
    )
    assert _every("DELIVERED", limit=50) == []
    # then verify finds the difference, and a rebuild lists the order
    assert not rebuild.verify(settle_s=0).clean
    rebuild.rebuild()
    assert rebuild.verify(settle_s=0).clean
    assert _every("DELIVERED", limit=50) == placed
