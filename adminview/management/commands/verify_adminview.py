"""``manage.py verify_adminview``: exit 0 when the view equals what the shop table implies, else 1."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import CommandParser

from adminview.rebuild import DEFAULT_SEGMENTS, verify
from dynamo.commands import ShopCommand, positive_int, whole_number


class Command(ShopCommand):
    help = "Compare the admin view with what the shop table implies; exit 1 with a summary when they differ."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--segments", type=positive_int, default=DEFAULT_SEGMENTS)
        parser.add_argument("--examples", type=whole_number, default=10, help="keys to show per kind of mismatch")

    def run(self, **options: Any) -> None:
        found = verify(segments=max(1, options["segments"]))
        if found.clean:
            self.stdout.write("admin view OK: equals what the shop table implies")
            return
        self.stdout.write(f"admin view differs: {found.summary(examples=options['examples'])}")
        self.stdout.flush()
        sys.exit(1)
