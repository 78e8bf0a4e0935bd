"""``manage.py adminview_deadletters list | replay``: records the sync could not apply."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from adminview import sync_store
from adminview.apply import apply_records
from dynamo.commands import ShopCommand


class Command(ShopCommand):
    help = "List the dead-lettered stream records, or replay them (removed from the store once applied)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["list", "replay"])

    def run(self, **options: Any) -> None:
        letters = list(sync_store.dead_letters())
        if options["action"] == "list":
            for letter in letters:
                self.stdout.write(letter.summary)
            self.stdout.write(f"{len(letters)} dead letter(s)")
            return
        applied = failed = 0
        for letter in letters:
            outcome = apply_records([letter.record])
            if outcome.failed:
                failed += 1
                self.stdout.write(
                    f"still failing: {letter.summary.split(': ', 1)[0]}: {next(iter(outcome.failed.values()))}"
                )
            else:
                sync_store.remove_dead_letter(letter.key)
                applied += 1
        self.stdout.write(f"replayed {applied}, still failing {failed}")
