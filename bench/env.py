"""The benchmark's own world: a DynamoDB Local in memory, the standard AWS variables pointing at it (the same
set-up as the tests: ``tests.engines.pointed_at``), Django set up, and fresh tables (every spec in
``settings.DYNAMODB_TABLES``) per table size; the table-name variables follow, so subprocesses find them."""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dynamo import local
from dynamo.tables import TableSpec, delete_table, ensure_table
from tests import engines


class Engine:
    """Where DynamoDB is. When we started DynamoDB Local ourselves, ``restart()`` gives a fresh, empty one on the
    same port (same endpoint, so cached clients keep working): DynamoDB Local slows down after earlier, even deleted,
    tables (10,000 orders seeded at ~230 items/s after a 1,000-order run vs ~2,400 items/s on a fresh one), so each
    measurement starts from a fresh engine."""

    def __init__(self, endpoint: str | None) -> None:
        self.own = endpoint is None
        self.process: local.DynamoDBLocal | None = None
        if self.own:
            self.process = local.in_memory().start()
            endpoint = self.process.endpoint
        assert endpoint is not None
        self.endpoint = endpoint

    @property
    def pid(self) -> int | None:
        """The engine's process id, when we started it."""
        running = self.process.process if self.process is not None else None
        return running.pid if running is not None else None

    def restart(self) -> None:
        if self.process is None:
            return
        self.process.restart()
        engines.forget_connections()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None


@contextmanager
def dynamodb(endpoint: str | None = None) -> Iterator[Engine]:
    """Point every client at ``endpoint``, or at a DynamoDB Local of our own (in memory, free port)."""
    from bench import cpu

    engine = Engine(endpoint)
    cpu.watch_engine(lambda: engine.pid)
    try:
        with engines.pointed_at(engine.endpoint):
            yield engine
    finally:
        cpu.watch_engine(lambda: None)
        engine.stop()


def setup_django(*, db_path: Path | None = None) -> None:
    """Configure Django (config.settings) with a throwaway SQLite database for the staff user and sessions."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + uuid.uuid4().hex)
    hosts = os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1")
    if "testserver" not in hosts.split(","):
        os.environ["DJANGO_ALLOWED_HOSTS"] = hosts + ",testserver"
    os.environ["DJANGO_DB_PATH"] = str(db_path or Path(tempfile.mkdtemp(prefix="bench-db-")) / "db.sqlite3")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)


def table_specs() -> list[tuple[str, TableSpec]]:
    from django.conf import settings
    from django.utils.module_loading import import_string

    return [(path, import_string(path)) for path in settings.DYNAMODB_TABLES]


# Which environment variable names a table, by the spec's dotted path (others only get a new Meta.table_name).
_ENV_FOR = {
    "shop.models.SHOP_TABLE": "SHOP_TABLE_NAME",
    "returns.models.RETURNS_TABLE": "RETURNS_TABLE_NAME",
    "adminview.tables.ADMIN_VIEW_TABLE": "ADMIN_VIEW_TABLE_NAME",
    "adminview.tables.SYNC_TABLE": "ADMIN_VIEW_SYNC_TABLE_NAME",
    "dynamo.checkpoints.CHECKPOINT_TABLE": "MIGRATIONS_TABLE_NAME",
}


@contextmanager
def fresh_tables(tag: str) -> Iterator[dict[str, str]]:
    """New, empty tables for every spec (names ``<usual>-<tag>-<random>``); deleted and names restored after."""
    specs = table_specs()
    saved: list[tuple[TableSpec, Any]] = []
    saved_env = {var: os.environ.get(var, "") for var in _ENV_FOR.values()}
    names: dict[str, str] = {}
    try:
        for path, spec in specs:
            original = spec.model.Meta.table_name
            saved.append((spec, original))
            name = f"{original}-{tag}-{uuid.uuid4().hex[:6]}"
            spec.model.Meta.table_name = name
            if path in _ENV_FOR:
                os.environ[_ENV_FOR[path]] = name
            ensure_table(spec)
            names[path] = name
        yield names
    finally:
        for spec, original in reversed(saved):
            try:
                delete_table(spec.model)
            finally:
                spec.model.Meta.table_name = original
        local.set_environment(saved_env)
