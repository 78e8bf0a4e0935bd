"""``manage.py verify_adminview``: exit 0 when the view equals what its source tables imply, else 1.

A difference is reported only if it is still there after the partition was read again for a few seconds
(``--settle``), so a live sync does not produce false alarms. An example in an order's partition names the
dashboard page that explains that one order (``/orders/<oid>/consistency/``)."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import CommandParser
from django.urls import NoReverseMatch, reverse

from adminview.core.schema import Key as ViewKey
from adminview.management.walk_options import add_walk_arguments, progress_bar, walk_settings
from adminview.repair.rebuild import DEFAULT_SETTLE_S, verify
from adminview.sync.sync_status import store_verify_result
from dynamo.arguments import int_between, seconds_between
from dynamo.commands import ShopCommand
from shop import keys


def consistency_page(key: ViewKey) -> str | None:
    """The path of the consistency page of the order whose partition holds ``key`` (None for other partitions)."""
    order_id = keys.without_prefix(key[0], keys.ORDER)
    if order_id is None:
        return None
    try:
        return reverse("dashboard:order-consistency", args=[order_id])
    except NoReverseMatch:  # an id no URL can carry (written by another service)
        return None


class Command(ShopCommand):
    help = "Compare the admin view with what its source tables imply; exit 1 with a summary when they differ."

    def add_arguments(self, parser: CommandParser) -> None:
        add_walk_arguments(parser)
        parser.add_argument(
            "--examples", type=int_between(0, 1000), default=10, help="keys to show per kind of mismatch"
        )
        parser.add_argument(
            "--settle",
            type=seconds_between(0, 3600),
            default=DEFAULT_SETTLE_S,
            help="seconds a differing partition is re-read before it is reported (default: %(default)s)",
        )

    def run(self, **options: Any) -> None:
        with progress_bar("scanned", disable=bool(options["no_progress"])) as scanned:
            found = verify(
                **walk_settings(options), settle_s=options["settle"], examples=options["examples"], on_scan=scanned
            )
        if found.clean:
            store_verify_result(ok=True, summary="equals what the source tables imply")
            self.stdout.write(f"admin view OK: equals what the source tables imply; {found.rate_line()}")
            return
        summary = found.summary(examples=options["examples"], link=consistency_page)
        store_verify_result(ok=False, summary=summary)
        self.stdout.write(f"admin view differs: {summary}")
        self.stdout.flush()
        sys.exit(1)
