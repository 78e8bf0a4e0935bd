"""Create the DynamoDB tables if missing, add missing GSIs online, wait until ACTIVE. Idempotent."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser
from django.utils.module_loading import import_string

from dynamo.commands import ShopCommand
from dynamo.tables import DEFAULT_TIMEOUT_S, TableSpec, ensure_table


class Command(ShopCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--timeout",
            type=float,
            default=DEFAULT_TIMEOUT_S,
            help="seconds to wait for tables and index backfills (default: %(default)s)",
        )

    def run(self, *args: Any, timeout: float, **options: Any) -> None:
        for path in settings.DYNAMODB_TABLES:
            spec: TableSpec = import_string(path)
            changes = ensure_table(spec, progress=lambda msg: self.stdout.write(msg), timeout_s=timeout)
            if not changes:
                self.stdout.write(f"{spec.name}: up to date")
        self.stdout.write(self.style.SUCCESS("tables ready"))
