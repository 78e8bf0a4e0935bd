"""Measure the model's evolution (a new attribute, index and entity) on a throwaway in-memory DynamoDB Local
(numbers for docs/migrations.md):

1. adding DeliveryDate-index (create_tables' ensure_table: UpdateTable + wait for the backfill) to a table
   already holding N orders that carry DeliveryDate (order, item, invoice each);
2. ``backfill delivery-date`` and ``backfill order-status`` over N legacy orders (neither attribute).

    .venv/bin/python -m bench.evolution --orders 10000 --segments 4
"""

from __future__ import annotations

import argparse
import os
import time

import django


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--orders", type=int, default=10_000)
    parser.add_argument("--legacy-orders", type=int, default=None, help="for the backfills (default: --orders)")
    parser.add_argument("--segments", type=int, default=4)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from dynamo import local
    from tests.engines import forget_connections

    with local.in_memory() as engine:
        os.environ.update(
            AWS_ENDPOINT_URL_DYNAMODB=engine.endpoint,
            AWS_ACCESS_KEY_ID="local",
            AWS_SECRET_ACCESS_KEY="local",
            AWS_REGION="us-east-1",
        )
        forget_connections()
        from django.core.management import call_command

        from dynamo.tables import ensure_table
        from shop.models import SHOP_TABLE, ShopItem
        from tests.shop import legacy

        # Backfills first: after an online index build DynamoDB Local slows down for every later write.
        ShopItem.Meta.table_name = "OnlineShopMeasured"
        ensure_table(SHOP_TABLE)
        count = args.legacy_orders or args.orders
        started = time.monotonic()
        written = legacy.write(legacy.order_items(count, legacy=True))
        print(f"wrote {count} legacy orders ({written} items) in {time.monotonic() - started:.1f}s")
        for name in ("delivery-date", "order-status"):
            call_command("backfill", name, "--segments", str(args.segments), "--no-progress")

        legacy.create_shop_table_without("DeliveryDate-index")
        started = time.monotonic()
        written = legacy.write(legacy.order_items(args.orders))
        print(f"wrote {args.orders} orders with DeliveryDate ({written} items) in {time.monotonic() - started:.1f}s")
        started = time.monotonic()
        ensure_table(SHOP_TABLE)
        print(f"DeliveryDate-index added and backfilled over {args.orders} orders in {time.monotonic() - started:.1f}s")


if __name__ == "__main__":
    main()
