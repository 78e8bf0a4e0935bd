"""``manage.py verify_adminview``: exit 0 when the view equals what the shop table implies, else 1."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import CommandParser

from adminview.rebuild import DEFAULT_SEGMENTS, verify
from adminview.sync_status import store_verify_result
from dynamo.commands import ShopCommand, positive_int, whole_number


class Command(ShopCommand):
    help = "Compare the admin view with what the shop table implies; exit 1 with a summary when they differ."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--segments", type=positive_int, default=DEFAULT_SEGMENTS)
        parser.add_argument("--examples", type=whole_number, default=10, help="keys to show per kind of mismatch")

    def run(self, **options: Any) -> None:
        found = verify(segments=max(1, options["segments"]))
        if found.clean:
            store_verify_result(ok=True, summary="equals what the shop table implies")
            self.stdout.write("admin view OK: equals what the shop table implies")
            return
        summary = found.summary(examples=options["examples"])
        store_verify_result(ok=False, summary=summary)
        self.stdout.write(f"admin view differs: {summary}")
        self.stdout.flush()
        sys.exit(1)
