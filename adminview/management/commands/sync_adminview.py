"""``manage.py sync_adminview --once | --follow [--replay]``: the local stand-in for the Lambda trigger."""

from __future__ import annotations

import signal
from typing import Any

from django.core.management.base import CommandParser

from adminview.sync.poller import Poller
from dynamo.arguments import int_between
from dynamo.commands import ShopCommand


class Command(ShopCommand):
    help = "Apply the source tables' streams to the admin view (same handler as the Lambda function)."

    def add_arguments(self, parser: CommandParser) -> None:
        mode = parser.add_mutually_exclusive_group(required=True)
        mode.add_argument("--once", action="store_true", help="read every shard to its current end, then exit")
        mode.add_argument("--follow", action="store_true", help="keep reading until SIGTERM/SIGINT")
        parser.add_argument(
            "--replay",
            action="store_true",
            help="start from TRIM_HORIZON ignoring checkpoints (idempotent: changes nothing already applied)",
        )
        parser.add_argument(
            "--batch-size",
            type=int_between(1, 1000),
            default=1000,
            metavar="1..1000",
            help="records per GetRecords call (Lambda's BatchSize)",
        )
        parser.add_argument("--report-every", type=float, default=5.0, help="seconds between progress lines")

    def run(self, **options: Any) -> None:
        poller = Poller.for_sources(
            replay=options["replay"],
            report=lambda line: self.stdout.write(line, ending="\n"),
            report_every_s=options["report_every"],
            limit=options["batch_size"],
        )
        start = "replay from trim horizon" if options["replay"] else "from checkpoints"
        self.stdout.write(f"reading {', '.join(poller.streams)} ({start})")
        self.stdout.flush()

        def stop(signum: int, _frame: Any) -> None:
            self.stdout.write(f"signal {signum}: finishing the current batch")
            poller.stop()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        poller.run(follow=options["follow"])
