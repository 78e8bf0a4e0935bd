"""``manage.py send_notifications --once | --follow``: send the customers' notifications waiting in the outbox."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import CommandParser

from dashboard import notify_mail
from dynamo.commands import ShopCommand
from shop import notifications


class Command(ShopCommand):
    help = "Send each notification due in the outbox once (Django's EMAIL_BACKEND) and mark it sent."

    def add_arguments(self, parser: CommandParser) -> None:
        mode = parser.add_mutually_exclusive_group(required=True)
        mode.add_argument("--once", action="store_true", help="send what is due now, then exit")
        mode.add_argument("--follow", action="store_true", help="keep sending until SIGTERM/SIGINT")
        parser.add_argument("--every", type=float, default=5.0, help="seconds between looks at the outbox")

    def run(self, **options: Any) -> None:
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        while True:
            while True:  # a full page may leave more behind it
                sent, failed = notifications.send_due(notify_mail.send)
                if sent or failed:
                    self.stdout.write(f"sent {sent}, failed {failed}")
                    self.stdout.flush()
                if sent + failed == 0 or stop.is_set():
                    break
            if options["once"] or stop.wait(options["every"]):
                return
