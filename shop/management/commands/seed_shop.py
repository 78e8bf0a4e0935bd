"""Seed realistic demo data (deterministic for a given --seed and --until date), with progress. On a table that
holds data already it adds new customers, products, warehouses and orders, numbered after the highest ids present.
Then each of ``settings.SEED_EXTENSIONS`` seeds another service's data about those orders (returns and refunds).
``--rate`` keeps the writes under a number of items a second, so a shared table's other users are not throttled."""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import fields
from datetime import date
from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser
from django.utils.module_loading import import_string
from tqdm import tqdm

from dynamo.arguments import positive_int, whole_number
from dynamo.commands import ShopCommand
from shop import seed_ids, seeding
from shop.timestamps import InvalidDate, now, parse_day

TODAY = "today"


def _day(text: str) -> date:
    """``YYYY-MM-DD``, or ``today``: now (UTC), so the newest orders are of today."""
    if text.strip().lower() == TODAY:
        return now()
    try:
        return parse_day(text, what="--until")
    except InvalidDate as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _rate(text: str) -> float:
    """argparse type: a positive, finite number of items per second."""
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--rate {text!r} is not a number of items per second") from exc
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"--rate {text!r} must be a positive number of items per second")
    return value


class Command(ShopCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        for count in ("customers", "products", "warehouses", "orders"):
            parser.add_argument(f"--{count}", type=whole_number, required=True)
        parser.add_argument("--seed", type=int, default=42, help="same seed, same data (default: %(default)s)")
        parser.add_argument(
            "--until",
            type=_day,
            default=seeding.DEFAULT_UNTIL,
            help="orders are placed before this day, YYYY-MM-DD, or before now with 'today' (UTC) "
            "(default: %(default)s)",
        )
        parser.add_argument(
            "--days",
            type=positive_int,
            default=None,
            help="spread the orders over this many days before --until, weekdays busier than weekends "
            "(default: each status its own age, up to two years)",
        )
        parser.add_argument("--workers", type=positive_int, default=8, help="concurrent writers (default: 8)")
        parser.add_argument(
            "--rate",
            type=_rate,
            default=None,
            metavar="ITEMS_PER_S",
            help="write at most about this many items a second, all writers together (default: no limit)",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bars (logs, CI)")

    def run(self, *_: Any, workers: int, rate: float | None, no_progress: bool, **options: Any) -> None:
        config = seeding.SeedConfig(
            **{f.name: options[f.name] for f in fields(seeding.SeedConfig) if f.name in options}
        )
        first = seed_ids.next_ids()
        plan = seeding.plan(config, first)
        extensions: list[seeding.SeedExtension] = [import_string(path) for path in settings.SEED_EXTENSIONS]
        started = time.monotonic()
        with tqdm(total=plan.size, desc="seeding", unit="item", disable=no_progress, mininterval=0.5) as bar:
            written = seeding.run(plan, workers=workers, on_progress=bar.update, rate=rate, extensions=extensions)
        elapsed = time.monotonic() - started
        self.stdout.write(
            self.style.SUCCESS(
                f"seeded {len(plan.catalog)} catalog items and {len(plan.orders)} orders ({written} items) in "
                f"{elapsed:.1f}s: {written / elapsed if elapsed else 0:.0f} items/s, "
                f"{len(plan.orders) / elapsed if elapsed else 0:.0f} orders/s (seed {config.seed}; new ids from "
                f"customer {first.customer}, product {first.product}, warehouse {first.warehouse}, order {first.order})"
            )
        )
