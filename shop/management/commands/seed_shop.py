"""Seed realistic demo data (deterministic for a given --seed), with progress. On a table that holds data
already it adds new customers, products, warehouses and orders, numbered after the highest ids present."""

from __future__ import annotations

import argparse
import time
from datetime import date
from typing import Any

from django.core.management.base import CommandParser
from tqdm import tqdm

from dynamo.commands import ShopCommand, positive_int, whole_number
from shop import seed_ids, seeding
from shop.timestamps import InvalidDate, parse_day


def _day(text: str) -> date:
    try:
        return parse_day(text, what="--until")
    except InvalidDate as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


class Command(ShopCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--customers", type=whole_number, required=True)
        parser.add_argument("--products", type=whole_number, required=True)
        parser.add_argument("--warehouses", type=whole_number, required=True)
        parser.add_argument("--orders", type=whole_number, required=True)
        parser.add_argument("--seed", type=int, default=42, help="same seed, same data (default: %(default)s)")
        parser.add_argument(
            "--until",
            type=_day,
            default=seeding.DEFAULT_UNTIL,
            help="newest order date, YYYY-MM-DD (default: %(default)s)",
        )
        parser.add_argument("--workers", type=positive_int, default=8, help="concurrent writers (default: 8)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bars (logs, CI)")

    def run(
        self,
        *_: Any,
        customers: int,
        products: int,
        warehouses: int,
        orders: int,
        seed: int,
        until: date,
        workers: int,
        no_progress: bool,
        **options: Any,
    ) -> None:
        config = seeding.SeedConfig(
            customers=customers, products=products, warehouses=warehouses, orders=orders, seed=seed, until=until
        )
        first = seed_ids.next_ids()
        plan = seeding.plan(config, first)
        started = time.monotonic()
        with tqdm(total=plan.size, desc="seeding", unit="item", disable=no_progress, mininterval=0.5) as bar:
            written = seeding.run(plan, workers=workers, on_progress=bar.update)
        elapsed = time.monotonic() - started
        self.stdout.write(
            self.style.SUCCESS(
                f"seeded {len(plan.catalog)} catalog items and {len(plan.orders)} orders ({written} items) in "
                f"{elapsed:.1f}s: {written / elapsed if elapsed else 0:.0f} items/s, "
                f"{len(plan.orders) / elapsed if elapsed else 0:.0f} orders/s (seed {seed}; new ids from customer "
                f"{first.customer}, product {first.product}, warehouse {first.warehouse}, order {first.order})"
            )
        )
