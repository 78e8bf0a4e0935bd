"""``manage.py adminview_deadletters list | replay | import-sqs``: records the sync could not apply.

The same store holds what the Lambda handler and the local poller could not apply, so both are listed and
replayed alike; ``import-sqs`` turns Lambda's on-failure messages into stored records while the stream still
holds them (24 hours). A replay is audited like a staff change in the dashboard: as ``--user`` (by default the
operating-system login), with one request id for the whole run.
"""

from __future__ import annotations

import getpass
import sys
import uuid
from typing import Any

from django.core.management.base import CommandParser

from adminview.sync import onfailure, sync_store
from adminview.sync.replay import replay
from dynamo.arguments import positive_int
from dynamo.commands import ShopCommand
from shop.audit import Actor


def operator() -> str:
    """The operating-system login, which is who ran the command (``operator`` where there is none)."""
    try:
        return getpass.getuser() or "operator"
    except (OSError, KeyError):
        return "operator"


class Command(ShopCommand):
    help = (
        "list: the dead-lettered stream records with their error; replay: apply them again (removed once applied, "
        "with an audit entry in the shop table; exit 1 if any still fails); import-sqs --queue-url URL: store "
        "the records named by Lambda's on-failure messages (exit 1 if any message could not be imported)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["list", "replay", "import-sqs"])
        parser.add_argument("--queue-url", help="import-sqs: the on-failure queue's URL")
        parser.add_argument("--max-messages", type=positive_int, default=None, help="import-sqs: stop after this many")
        parser.add_argument("--user", help="replay: who the audit trail names (default: your operating-system login)")

    def run(self, **options: Any) -> None:
        action = options["action"]
        if options.get("user") is not None and action != "replay":
            raise ValueError("--user goes with replay only")
        if action == "import-sqs":
            self._import(options.get("queue_url"), options.get("max_messages"))
            return
        if options.get("queue_url") or options.get("max_messages") is not None:
            raise ValueError("--queue-url and --max-messages go with import-sqs only")
        if action == "list":
            letters = list(sync_store.dead_letters())
            for letter in letters:
                self.stdout.write(letter.summary)
            self.stdout.write(f"{len(letters)} dead letter(s)")
            return
        actor = Actor(options.get("user") or operator(), request_id=f"cli-{uuid.uuid4().hex}")  # checked first
        letters = list(sync_store.dead_letters())
        results = [replay(letter, actor) for letter in letters]
        for result in results:
            self.stdout.write(result.line)
        failed = sum(not r.ok for r in results)
        self.stdout.write(f"replayed {len(results) - failed}, still failing {failed}")
        if failed:
            self.stdout.flush()
            sys.exit(1)

    def _import(self, queue_url: str | None, max_messages: int | None) -> None:
        if not queue_url or not queue_url.strip():
            raise ValueError("import-sqs needs --queue-url URL (the event source mapping's on-failure queue)")
        results = onfailure.import_queue(
            queue_url.strip(), max_messages=max_messages, report=lambda r: self.stdout.write(r.line)
        )
        kept = sum(r.error is not None for r in results)
        stored = sum(r.stored for r in results)
        self.stdout.write(f"{len(results)} message(s): {stored} record(s) stored, {kept} message(s) kept")
        if kept:
            self.stdout.flush()
            sys.exit(1)
