"""``manage.py verify_adminview``: exit 0 when the view equals what the shop table implies, else 1.

A difference is reported only if it is still there after the partition was read again for a few seconds
(``--settle``), so a live sync does not produce false alarms."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from django.core.management.base import CommandParser

from adminview.management.walk_options import add_walk_arguments, int_between, progress_bar
from adminview.rebuild import DEFAULT_SETTLE_S, verify
from dynamo.commands import ShopCommand


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from exc
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 3600 seconds")
    return value


class Command(ShopCommand):
    help = "Compare the admin view with what the shop table implies; exit 1 with a summary when they differ."

    def add_arguments(self, parser: CommandParser) -> None:
        add_walk_arguments(parser)
        parser.add_argument(
            "--examples", type=int_between(0, 1000), default=10, help="keys to show per kind of mismatch"
        )
        parser.add_argument(
            "--settle",
            type=_seconds,
            default=DEFAULT_SETTLE_S,
            help="seconds a differing partition is re-read before it is reported (default: %(default)s)",
        )

    def run(self, **options: Any) -> None:
        with progress_bar("scanned", disable=bool(options["no_progress"])) as scanned:
            found = verify(
                segments=options["segments"],
                page_size=options["page_size"],
                rate_limit=options["rate_limit"],
                settle_s=options["settle"],
                examples=options["examples"],
                on_scan=scanned,
            )
        if found.clean:
            self.stdout.write(f"admin view OK: equals what the shop table implies; {found.rate_line()}")
            return
        self.stdout.write(f"admin view differs: {found.summary(examples=options['examples'])}")
        self.stdout.flush()
        sys.exit(1)
