"""``manage.py rebuild_adminview``: recompute the admin view from a parallel Scan of the shop table."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser
from tqdm import tqdm

from adminview.rebuild import DEFAULT_SEGMENTS, rebuild
from dynamo.commands import ShopCommand, positive_int


class Command(ShopCommand):
    help = "Rebuild the admin view from the shop table (writes what is missing or different, removes extras)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--segments", type=positive_int, default=DEFAULT_SEGMENTS, help="parallel Scan segments")

    def run(self, **options: Any) -> None:
        segments = max(1, options["segments"])
        with (
            tqdm(desc="scanned", unit=" items", disable=None) as scanned,
            tqdm(desc="written", unit=" items", disable=None) as written,
        ):
            found = rebuild(segments=segments, on_page=scanned.update, on_write=written.update)
        self.stdout.write(f"rebuilt: {found.summary(examples=0)} (now fixed)")
