"""Measure the admin view sync against DynamoDB Local: throughput (stream records/s through the handler) and
end-to-end lag (a domain write until its order is visible in the pending-orders index).

    .venv/bin/python bench/sync_throughput.py [--orders 2000] [--lag-samples 30]

Starts its own in-memory DynamoDB Local; touches nothing else. Numbers are for DynamoDB Local on this machine
(a single JVM, no network), so they say more about our code path than about AWS.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=2000, help="orders in the seeded history")
    parser.add_argument("--lag-samples", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=1000)
    args = parser.parse_args()

    from dynamo import local

    with local.in_memory() as engine:
        os.environ.update(
            {
                "AWS_ACCESS_KEY_ID": "bench",
                "AWS_SECRET_ACCESS_KEY": "bench",
                "AWS_REGION": "us-east-1",
                "AWS_DEFAULT_REGION": "us-east-1",
                "AWS_ENDPOINT_URL_DYNAMODB": engine.endpoint,
                "AWS_ENDPOINT_URL_DYNAMODB_STREAMS": engine.endpoint,
            }
        )
        import django

        django.setup()
        from adminview.models import ADMIN_VIEW_TABLE, SYNC_TABLE, OrderSummary
        from adminview.poller import Poller
        from adminview.rebuild import verify
        from dynamo.models import reset_connections
        from dynamo.tables import ensure_table
        from shop import orders, seeding
        from shop.models import SHOP_TABLE, Product

        reset_connections()
        for spec in (SHOP_TABLE, ADMIN_VIEW_TABLE, SYNC_TABLE):
            ensure_table(spec)
        plan = seeding.plan(seeding.SeedConfig(customers=200, products=100, warehouses=3, orders=args.orders))
        t0 = time.perf_counter()
        seeding.run(plan)
        print(f"seeded {plan.size} catalog items + orders in {time.perf_counter() - t0:.1f}s")

        poller = Poller.for_shop_table(limit=args.batch_size)
        t0 = time.perf_counter()
        stats = poller.run(follow=False)
        elapsed = time.perf_counter() - t0
        print(
            f"sync --once: {stats.records} stream records in {elapsed:.2f}s = {stats.records / elapsed:.0f} "
            f"records/s (batches {stats.batches}, applied {stats.applied}, dead letters {stats.dead_lettered})"
        )
        found = verify()
        print(f"verify after sync: {'OK' if found.clean else found.summary()}")

        follower = Poller.for_shop_table(limit=args.batch_size, idle_s=0.05)
        thread = threading.Thread(target=follower.run, kwargs={"follow": True}, daemon=True)
        thread.start()
        customer = plan.first_customer_id or "1"
        product = next(i for i in plan.catalog if isinstance(i, Product))
        lags: list[float] = []
        for n in range(args.lag_samples):
            oid = f"lag{n}"
            try:
                orders.order_place(customer_id=customer, lines=[orders.OrderLine(product.product_id, 1)], order_id=oid)
            except Exception as exc:  # out of stock etc.: skip the sample
                print(f"sample {n} skipped: {exc}")
                continue
            written = time.perf_counter()
            while True:
                summary = next(iter(OrderSummary.query("o#" + oid, consistent_read=True)), None)
                if summary is not None and summary.gsi1_pk:
                    break
                time.sleep(0.005)
            lags.append(time.perf_counter() - written)
        follower.stop()
        thread.join(timeout=10)
        if lags:
            lags.sort()
            p95 = lags[min(len(lags) - 1, int(len(lags) * 0.95))]
            print(
                f"end-to-end lag (write committed -> visible in the pending index), {len(lags)} samples: "
                f"median {statistics.median(lags) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
                f"max {lags[-1] * 1000:.0f} ms (poller idle poll 50 ms)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
