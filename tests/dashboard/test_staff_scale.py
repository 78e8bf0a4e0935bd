"""The new pages' DynamoDB call counts are the same at 150 and at 600 orders (read from the header): the
status lists, their live-queue poll and the activity list (all, by user, by day). Orders are written as
history by ``shop.seeding``; staff changes with ``shop.bulk`` (audited); the stream is synced into the view."""

from __future__ import annotations

import dataclasses
import re

import pytest
from django.test import Client

from shop import bulk, seeding
from shop.audit import Actor
from shop.timestamps import now
from tests.adminview_helpers import sync_now

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local, pytest.mark.slow, pytest.mark.fresh_engine]


def calls(client: Client, url: str) -> int:
    response = client.get(url)
    assert response.status_code == 200, url
    return int(response["X-DynamoDB-Calls"])


def pending_ids(client: Client, count: int) -> list[str]:
    html = client.get(f"/orders/?status=PENDING&limit={count}").content.decode()
    return re.findall(r'data-order-id="([^"]+)"', html)


def costs(client: Client) -> dict[str, int]:
    page = client.get("/orders/?status=PENDING").content.decode()
    live = re.search(r'hx-get="(/orders/new/[^"]+)"', page)
    assert live is not None
    today = now().date().isoformat()
    return {
        **{s: calls(client, f"/orders/?status={s}") for s in ("PENDING", "SHIPPED", "CANCELLED")},
        "live": calls(client, live.group(1).replace("&amp;", "&")),
        "activity": calls(client, "/activity/"),
        "activity-user": calls(client, "/activity/?user=packer"),
        "activity-day": calls(client, f"/activity/?day={today}"),
    }


def test_new_pages_calls_do_not_grow_with_the_table(packer: Client, shop_table: str, admin_view_table: str) -> None:
    full = seeding.plan(seeding.SeedConfig(customers=50, products=15, warehouses=3, orders=600, seed=11))
    # a quarter of the orders, spread over the plan's time (it numbers them in the order they were placed)
    seeding.run(dataclasses.replace(full, orders=full.orders[::4]))
    sync_now()
    bulk.run("cancel", pending_ids(packer, 15), actor=Actor("packer"))
    sync_now()
    small = costs(packer)

    seeding.run(dataclasses.replace(full, catalog=[], orders=[o for n, o in enumerate(full.orders) if n % 4]))
    sync_now()
    bulk.run("cancel", pending_ids(packer, 50), actor=Actor("packer"))
    sync_now()
    big = costs(packer)
    assert big == small
    # one Query per shard, or one; a status list also reads its page's customers' profiles, its orders' summaries
    # and refunds (their payment and fulfilment) and the freshness line, and the pending list, for its bulk ship,
    # where its orders ship from (their summaries' lines)
    assert small == {s: 4 for s in small} | {"activity-user": 1} | {s: 4 + 3 for s in ("SHIPPED", "CANCELLED")} | {
        "PENDING": 4 + 4
    }
