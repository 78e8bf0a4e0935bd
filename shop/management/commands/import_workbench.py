"""Load a NoSQL Workbench model's items (TableData, or the union of TableFacets[*].TableData) into the shop table.

The whole file is validated first; a malformed file is refused without writing anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser

from dynamo.commands import ShopCommand
from shop.workbench import import_items, parse_file


class Command(ShopCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="a NoSQL Workbench model (.json)")
        parser.add_argument("--dry-run", action="store_true", help="validate and report, write nothing")

    def run(self, *_: Any, file: Path, dry_run: bool, **options: Any) -> None:
        parsed = parse_file(file)
        summary = ", ".join(f"{n} {entity}" for entity, n in sorted(parsed.by_entity.items()))
        if dry_run:
            self.stdout.write(f"{file}: {len(parsed.items)} valid items ({summary}); nothing written (--dry-run)")
            return
        written = import_items(parsed)
        self.stdout.write(self.style.SUCCESS(f"imported {written} items from {file} ({summary})"))
