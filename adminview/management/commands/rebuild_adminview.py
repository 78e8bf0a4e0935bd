"""``manage.py rebuild_adminview``: make the admin view equal to what its source tables imply, safe to run
while staff act and the sync applies records (see ``adminview.repair.rebuild``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from adminview.management.walk_options import add_walk_arguments, progress_bar, walk_settings
from adminview.repair.rebuild import rebuild
from dynamo.commands import ShopCommand


class Command(ShopCommand):
    help = (
        "Rebuild the admin view from the shop table, partition by partition, while the sync runs: writes what "
        "is missing or different and removes what no longer follows, each write conditioned on the "
        "revision of the partition's anchor."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_walk_arguments(parser)

    def run(self, **options: Any) -> None:
        no_progress = bool(options["no_progress"])
        with (
            progress_bar("scanned", disable=no_progress) as scanned,
            progress_bar("written", disable=no_progress) as written,
        ):
            found = rebuild(**walk_settings(options), on_scan=scanned, on_write=written)
        self.stdout.write(f"rebuilt: {found.summary(examples=0)} (now fixed); {found.rate_line(writes=True)}")
        if found.contended:
            raise ValueError(f"{found.contended} partitions were still changing after every attempt: run again")
        if found.unprojectable:
            pk, reason = min(found.unprojectable.items())
            raise ValueError(
                f"{len(found.unprojectable)} source partitions cannot be projected (e.g. {pk}: {reason}); "
                "fix the cause, then replay their dead letters"
            )
