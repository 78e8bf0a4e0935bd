"""Run a data migration over the shop table (or another service's: ``settings.MIGRATION_EXTENSIONS``): parallel
segmented Scan, conditional (idempotent) updates, rate-limited, checkpointed per segment (a killed run resumes),
with --dry-run and a progress bar.

    manage.py backfill --list
    manage.py backfill delivery-date --dry-run
    manage.py backfill delivery-date --segments 8 --rate-limit 200      # RCU/WCU per second
    manage.py backfill order-status --rate-limit 25%                    # share of provisioned capacity
    manage.py backfill order-status --reset                             # forget checkpoints, scan again
    manage.py backfill refund-customer                                  # the returns table's refunds
"""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser
from django.utils.module_loading import import_string
from tqdm import tqdm

from dynamo import backfill
from dynamo.arguments import add_walk_arguments
from dynamo.batch import Progress
from dynamo.commands import ShopCommand
from dynamo.paging import MAX_PAGE
from shop import migrations


def _extensions() -> list[migrations.Factory]:
    return [import_string(path) for path in settings.MIGRATION_EXTENSIONS]


class Command(ShopCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("migration", nargs="?", help=f"one of: {', '.join(migrations.registry(_extensions()))}")
        parser.add_argument(
            "--list", action="store_true", dest="list_only", help="list the migrations and their progress"
        )
        parser.add_argument("--dry-run", action="store_true", help="report what would change; write nothing")
        notes = ("; resume with the same number", "; one checkpoint a page")
        add_walk_arguments(parser, page_size=backfill.DEFAULT_PAGE, max_page=MAX_PAGE, notes=notes)
        parser.add_argument("--reset", action="store_true", help="forget this migration's checkpoints first")

    def run(
        self,
        *_: Any,
        migration: str | None,
        list_only: bool,
        dry_run: bool,
        segments: int,
        rate_limit: str | None,
        page_size: int,
        reset: bool,
        no_progress: bool,
        **options: Any,
    ) -> None:
        if list_only:
            for name, factory in migrations.registry(_extensions()).items():
                self.stdout.write(f"{name}: {factory().description}")
            return
        if not migration:
            raise ValueError(f"name a migration: {', '.join(migrations.registry(_extensions()))} (or --list)")
        if dry_run and reset:
            raise ValueError("--dry-run writes nothing, so it cannot --reset checkpoints")
        chosen = migrations.get(migration, _extensions())
        bars: list[tqdm[Any]] = []
        lock = threading.Lock()

        def progress(total: int | None) -> Progress:
            bar = tqdm(total=total, desc=chosen.name, unit="item", disable=no_progress, mininterval=0.5)
            bars.append(bar)

            def update(n: int) -> None:
                with lock:
                    bar.update(n)

            return update

        try:
            report = backfill.run(
                chosen,
                segments=segments,
                page_size=page_size,
                dry_run=dry_run,
                rate_limit=rate_limit,
                start_over=reset,
                progress=progress,
            )
        finally:
            for bar in bars:
                bar.close()
        for line in report.samples if dry_run else []:
            self.stdout.write(f"  {line}")
        self.stdout.write(self.style.SUCCESS(report.summary()))
