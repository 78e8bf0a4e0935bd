"""Test fixtures: one DynamoDB Local per test session (in memory, free port), fresh tables per test.

Tests that need the real engine ask for ``shop_table`` (or ``ddb_local``), and only those carry the
``ddb_local`` marker: it is applied from the fixture (see ``pytest_collection_modifyitems``), never by hand, so
``-m "not ddb_local"`` runs exactly the engine-free tests.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from dynamo import local, side_by_side
from dynamo.models import reset_connections
from dynamo.tables import TableSpec, delete_table, ensure_table


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses the ``ddb_local`` fixture, directly or through another fixture."""
    for item in items:
        if "ddb_local" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.ddb_local)


# DynamoDB Local (in memory) gets slower as tables are created, written and deleted, and a restart costs a JVM's
# start: between test modules it is restarted on the same port once this many tables were made.
RESTART_AFTER_TABLES = 160
_engine: list[local.DynamoDBLocal] = []
_tables_made = [0]


@pytest.fixture(scope="session")
def ddb_local() -> Iterator[local.DynamoDBLocal]:
    """One DynamoDB Local for the session; the standard AWS variables point every client at it."""
    with local.in_memory() as engine, local.pointed_at(engine.endpoint):
        _engine.append(engine)
        try:
            yield engine
        finally:
            _engine.clear()


@pytest.fixture(scope="module", autouse=True)
def _fresh_engine_between_modules(request: pytest.FixtureRequest) -> Iterator[None]:
    """Restart the session's DynamoDB Local (same port, so every client and subprocess still finds it)
    before a module, when enough tables went through it; no table survives a module, so nothing is lost.

    A module marked ``fresh_engine`` (it writes tens of thousands of items) starts on a fresh engine and
    leaves one for the next module: DynamoDB Local keeps every stream record in one SQLite store, and each
    write slows down as that store grows."""
    heavy = request.node.get_closest_marker("fresh_engine") is not None
    if _engine and (heavy or _tables_made[0] >= RESTART_AFTER_TABLES):
        _restart_engine()
    yield
    if heavy:
        _tables_made[0] = RESTART_AFTER_TABLES


def _restart_engine() -> None:
    _engine[0].restart()
    reset_connections()
    _tables_made[0] = 0


def fresh_table(spec: TableSpec, prefix: str) -> str:
    """Point the spec's model at a brand-new table and create it; returns the name."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    _tables_made[0] += 1
    spec.model.Meta.table_name = name
    ensure_table(spec)
    return name


def fresh_tables(*wanted: tuple[TableSpec, str]) -> list[str]:
    """``fresh_table`` for each (spec, prefix), side by side: DynamoDB Local makes tables faster together than one
    after another."""
    return side_by_side.map_calls(lambda pair: fresh_table(*pair), wanted)


@pytest.fixture
def shop_table(ddb_local: local.DynamoDBLocal) -> Iterator[str]:
    """A new, empty shop table (stream on) for this test, and a returns table beside it (the view's other source);
    SHOP_TABLE_NAME and RETURNS_TABLE_NAME point at them too. Returns the shop table's name."""
    from returns.models import RETURNS_TABLE
    from shop.models import SHOP_TABLE

    originals = (SHOP_TABLE.model.Meta.table_name, RETURNS_TABLE.model.Meta.table_name)
    name, returns_name = fresh_tables((SHOP_TABLE, "OnlineShop"), (RETURNS_TABLE, "ShopReturns"))
    os.environ["SHOP_TABLE_NAME"] = name
    os.environ["RETURNS_TABLE_NAME"] = returns_name
    try:
        yield name
    finally:
        delete_table(SHOP_TABLE.model)
        delete_table(RETURNS_TABLE.model)
        SHOP_TABLE.model.Meta.table_name, RETURNS_TABLE.model.Meta.table_name = originals
        os.environ.pop("SHOP_TABLE_NAME", None)
        os.environ.pop("RETURNS_TABLE_NAME", None)


@pytest.fixture
def admin_view_table(ddb_local: local.DynamoDBLocal) -> Iterator[str]:
    """A new, empty admin view table (and its sync table: checkpoints, dead letters) for this test;
    ADMIN_VIEW_TABLE_NAME / ADMIN_VIEW_SYNC_TABLE_NAME point at them too. Returns the view table's name."""
    from adminview.tables import ADMIN_VIEW_TABLE, SYNC_TABLE

    originals = (ADMIN_VIEW_TABLE.model.Meta.table_name, SYNC_TABLE.model.Meta.table_name)
    name, sync_name = fresh_tables((ADMIN_VIEW_TABLE, "AdminView"), (SYNC_TABLE, "AdminViewSync"))
    os.environ["ADMIN_VIEW_TABLE_NAME"] = name
    os.environ["ADMIN_VIEW_SYNC_TABLE_NAME"] = sync_name
    try:
        yield name
    finally:
        delete_table(ADMIN_VIEW_TABLE.model)
        delete_table(SYNC_TABLE.model)
        ADMIN_VIEW_TABLE.model.Meta.table_name, SYNC_TABLE.model.Meta.table_name = originals
        os.environ.pop("ADMIN_VIEW_TABLE_NAME", None)
        os.environ.pop("ADMIN_VIEW_SYNC_TABLE_NAME", None)


@pytest.fixture
def checkpoint_table(ddb_local: local.DynamoDBLocal) -> Iterator[str]:
    """A new, empty backfill checkpoint table for this test; MIGRATIONS_TABLE_NAME points at it too."""
    from dynamo.checkpoints import CHECKPOINT_TABLE

    original = CHECKPOINT_TABLE.model.Meta.table_name
    name = fresh_table(CHECKPOINT_TABLE, "ShopMigrations")
    os.environ["MIGRATIONS_TABLE_NAME"] = name
    try:
        yield name
    finally:
        delete_table(CHECKPOINT_TABLE.model)
        CHECKPOINT_TABLE.model.Meta.table_name = original
        os.environ.pop("MIGRATIONS_TABLE_NAME", None)
