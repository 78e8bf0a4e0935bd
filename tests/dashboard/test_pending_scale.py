"""The pending page's DynamoDB call count is the same at 250 and at 1,000 orders (read from the header): four
times the orders, the pending list several pages long at both sizes (pages of 20).

Orders are written as history by ``shop.seeding`` (BatchWriteItem), then the stream is synced into the real
admin view.
"""

from __future__ import annotations

import dataclasses

import pytest
from django.test import Client

from shop import seeding
from tests.adminview_helpers import sync_now

pytestmark = [pytest.mark.django_db, pytest.mark.slow, pytest.mark.fresh_engine]


PENDING = "/orders/pending/?limit=20"


def cost(client: Client, url: str) -> tuple[int, str | None]:
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    more = None
    if 'class="load-more"' in html:
        more = html.split('class="load-more" href="')[1].split('"')[0].replace("&amp;", "&")
    return int(response["X-DynamoDB-Calls"]), more


def test_pending_calls_do_not_grow_with_the_table(staff: Client, shop_table: str, admin_view_table: str) -> None:
    full = seeding.plan(seeding.SeedConfig(customers=125, products=25, warehouses=3, orders=1_000, seed=7))
    # a quarter of the orders, spread over the plan's time (it numbers them in the order they were placed)
    seeding.run(dataclasses.replace(full, orders=full.orders[::4]))
    sync_now()
    small_first, small_more = cost(staff, PENDING)
    assert small_more is not None  # ~15% of 250 orders are pending: more than one page of 20
    small_second, _ = cost(staff, small_more)

    seeding.run(dataclasses.replace(full, catalog=[], orders=[o for n, o in enumerate(full.orders) if n % 4]))
    sync_now()
    big_first, big_more = cost(staff, PENDING)
    assert big_more is not None
    big_second, _ = cost(staff, big_more)
    assert (big_first, big_second) == (small_first, small_second)
