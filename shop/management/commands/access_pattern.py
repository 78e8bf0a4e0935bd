"""Run a named access pattern (AWS's 16 and the shop table's own); one JSON object per item, in DynamoDB's order.

Example: ``access_pattern getInvoiceByCustomerIdForDateRange c#12345 2020-06-01 2020-06-30``
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from dynamo.commands import ShopCommand
from shop.pattern_registry import PATTERNS, run_pattern
from shop.plain import to_json_line


class Command(ShopCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="pattern name; one of: " + ", ".join(PATTERNS))
        parser.add_argument(
            "pattern_args",
            nargs="*",
            metavar="ARG",
            help="in the order of the pattern's parameters: ids (bare or prefixed), dates (YYYY-MM-DD or timestamps)",
        )

    def run(self, *_: Any, name: str, pattern_args: list[str], **options: Any) -> None:
        for item in run_pattern(name, pattern_args):
            self.stdout.write(to_json_line(item))
