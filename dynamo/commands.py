"""A base for our management commands: every error is one line on stderr and a non-zero exit.

Django prints ``CommandError`` as one line already; argparse would print usage plus the error, and an
unexpected DynamoDB error would print a traceback. Both become one line here.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

from botocore.exceptions import BotoCoreError, ClientError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from pynamodb.exceptions import PynamoDBException

from domain.errors import DomainError


class OneLineParser(CommandParser):
    def error(self, message: str) -> NoReturn:
        raise CommandError(f"{message} (see `{self.prog} --help`)", returncode=2)


class ShopCommand(BaseCommand):
    """Subclasses implement ``run(**options)``; domain errors (``domain.errors.DomainError``), argument checks
    (ValueError, LookupError) and DynamoDB errors become a one-line CommandError."""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.__class__ = OneLineParser
        return parser

    def run_from_argv(self, argv: list[str]) -> None:
        try:
            super().run_from_argv(argv)
        except CommandError as exc:  # raised while parsing arguments, before Django's own handler
            self.stderr.write(f"CommandError: {exc}")
            sys.exit(exc.returncode)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            self.run(*args, **options)
        except (DomainError, ValueError, LookupError) as exc:
            raise CommandError(str(exc)) from exc
        except ClientError as exc:
            error = exc.response.get("Error", {})
            raise CommandError(f"DynamoDB refused: {error.get('Code')}: {error.get('Message')}") from exc
        except (BotoCoreError, PynamoDBException) as exc:
            raise CommandError(f"DynamoDB error: {_first_line(exc)}") from exc

    def run(self, *args: Any, **options: Any) -> None:
        raise NotImplementedError


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
