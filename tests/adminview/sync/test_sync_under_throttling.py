"""The sync against DynamoDB as it answers when capacity runs out: a quarter of the admin view's calls throttled
(through ``throttling_proxy``), and every record still applies on its first attempt, the view equal to the shop."""

from __future__ import annotations

from typing import Any

import pytest

from adminview.repair import rebuild
from adminview.sync import sync_store
from dynamo import local
from shop import seeding
from tests import engines
from tests.adminview.sync.throttling_proxy import ThrottlingProxy
from tests.adminview_helpers import sync_now

SHOP = seeding.SeedConfig(customers=5, products=4, warehouses=1, orders=20, seed=3)


def test_the_sync_rides_out_throttling_of_every_kind(
    shop_table: str,
    admin_view_table: str,
    ddb_local: local.DynamoDBLocal,
    monkeypatch: pytest.MonkeyPatch,
    anchor_writes: str,
) -> None:
    # given a small shop, and the sync's way to DynamoDB through a proxy that throttles a quarter of the view's calls
    seeding.run(seeding.plan(SHOP), workers=2)
    failures: list[str] = []
    real_store = sync_store.store_dead_letter

    def noting(record: Any, error: str) -> int:
        failures.append(error)
        return real_store(record, error)

    monkeypatch.setattr(sync_store, "store_dead_letter", noting)
    # when the sync drains the streams once
    with ThrottlingProxy(ddb_local.endpoint, table=admin_view_table) as proxy, engines.pointed_at(proxy.endpoint):
        stats = sync_now()
    # then every kind of throttling was met, and no record failed even one attempt
    anchors = "BatchExecuteStatement" if anchor_writes == "partiql" else "PutItem"
    assert set(proxy.injected) >= {"TransactWriteItems", "BatchWriteItem", anchors, "BatchGetItem", "GetRecords"}
    assert stats.records > 0 and stats.dead_lettered == 0 and failures == []
    assert sync_store.dead_letter_count() == 0
    found = rebuild.verify(settle_s=0)
    assert found.clean, found.summary()
