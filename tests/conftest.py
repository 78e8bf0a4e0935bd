"""Test fixtures: one DynamoDB Local per test session (in memory, free port), its tables made once and emptied
between tests (``tests.shared_tables``).

Tests that need the real engine ask for ``shop_table`` (or ``ddb_local``), and only those carry the
``ddb_local`` marker: it is applied from the fixture (see ``pytest_collection_modifyitems``), never by hand, so
``-m "not ddb_local"`` runs exactly the engine-free tests.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.test import override_settings

from dynamo import local, side_by_side
from dynamo.tables import TableSpec, ensure_table
from tests import engines
from tests.shared_tables import TablePool

HEAVY = ("slow", "browser")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses the ``ddb_local`` fixture, directly or through another fixture; then put the
    modules holding a ``slow`` or ``browser`` test first (each module kept whole, in its own order, so its
    module-scoped fixtures are made once): two workers then start the longest tests early instead of one of them
    finishing the run alone on a test that started last."""
    for item in items:
        if "ddb_local" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.ddb_local)
    heavy_modules = {item.path for item in items if any(item.get_closest_marker(m) for m in HEAVY)}
    items.sort(key=lambda item: item.path not in heavy_modules)


class OneRoundPBKDF2(PBKDF2PasswordHasher):
    """Django's default hasher at one round: a password costs microseconds, not a second of CPU, and the hashes it
    makes stay ``pbkdf2_sha256`` ones that the product's own hasher (in a server the tests start) still checks."""

    iterations = 1


@pytest.fixture(scope="session", autouse=True)
def _quick_settings() -> Iterator[None]:
    """Passwords hashed at one round; WhiteNoise finding a static file when it is asked for (its development mode)
    instead of indexing every static file whenever a test client makes its handler. The servers the tests start
    keep the product's own settings."""
    with override_settings(PASSWORD_HASHERS=[f"{__name__}.OneRoundPBKDF2"], WHITENOISE_AUTOREFRESH=True):
        yield


# DynamoDB Local (in memory) gets much slower as stream records pile up in its store, even those of tables since
# deleted (1,000 PutItems: 5 s on a fresh engine, 39 s after 25,000 writes elsewhere), and a restart costs a JVM's
# start and the pool's tables made again: a module marked ``fresh_engine`` starts on a fresh engine and leaves one
# for the next module, and any module starts on a fresh one once the engine has served ENGINE_MAX_AGE_S.
ENGINE_MAX_AGE_S = 90.0
_engine: list[local.DynamoDBLocal] = []
_started: list[float] = []  # when the engine was last (re)started (time.monotonic())
_pool = TablePool()


@pytest.fixture(scope="session")
def ddb_local() -> Iterator[local.DynamoDBLocal]:
    """One DynamoDB Local for the session; the standard AWS variables point every client at it."""
    with local.in_memory(short_lived=True) as engine, engines.pointed_at(engine.endpoint):
        _engine.append(engine)
        _started[:] = [time.monotonic()]
        try:
            yield engine
        finally:
            _engine.clear()
            _pool.forget()


@pytest.fixture(scope="module", autouse=True)
def _fresh_engine_for_heavy_modules(request: pytest.FixtureRequest) -> Iterator[None]:
    """A module marked ``fresh_engine`` (it writes tens of thousands of items) runs on a freshly started DynamoDB
    Local (same port, so every client and subprocess still finds it) and leaves a fresh one behind; any other
    module starts on a fresh one when the engine is older than ENGINE_MAX_AGE_S: DynamoDB Local keeps every stream
    record in one SQLite store, and each write slows down as that store grows."""
    heavy = request.node.get_closest_marker("fresh_engine") is not None
    if _engine and (heavy or time.monotonic() - _started[0] > ENGINE_MAX_AGE_S):
        _restart_engine()
    yield
    if _engine and heavy:
        _restart_engine()


def _restart_engine() -> None:
    _engine[0].restart()
    _started[:] = [time.monotonic()]
    engines.forget_connections()
    _pool.forget()


def fresh_table(spec: TableSpec, prefix: str) -> str:
    """Point the spec's model at a brand-new table and create it; returns the name. For the tests that need a
    table of their own (most share the pool's, see ``shared_tables``)."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    spec.model.Meta.table_name = name
    ensure_table(spec)
    return name


@contextmanager
def shared(*wanted: tuple[TableSpec, str, str]) -> Iterator[list[str]]:
    """The pool's empty table for each (spec, name prefix, environment variable), named in that variable too, for
    one test (or module); each is emptied (or dropped) afterwards, and the specs and variables point back where they
    pointed before."""
    originals = [spec.model.Meta.table_name for spec, _, _ in wanted]
    variables = [os.environ.get(variable) for _, _, variable in wanted]  # a module's tables, when it has its own
    names = side_by_side.map_calls(lambda one: _pool.take(one[0], one[1]), wanted)
    for (_, _, variable), name in zip(wanted, names, strict=True):
        os.environ[variable] = name
    try:
        yield names
    finally:
        side_by_side.map_calls(lambda one: _pool.give_back(one[0], one[1]), wanted)
        for (spec, _, variable), original, value in zip(wanted, originals, variables, strict=True):
            spec.model.Meta.table_name = original
            if value is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = value


@pytest.fixture
def shop_table(ddb_local: local.DynamoDBLocal) -> Iterator[str]:
    """An empty shop table (stream on) for this test, and a returns table beside it (the view's other source);
    SHOP_TABLE_NAME and RETURNS_TABLE_NAME point at them too. Returns the shop table's name."""
    from returns.models import RETURNS_TABLE
    from shop.models import SHOP_TABLE

    with shared(
        (SHOP_TABLE, "OnlineShop", "SHOP_TABLE_NAME"), (RETURNS_TABLE, "ShopReturns", "RETURNS_TABLE_NAME")
    ) as names:
        yield names[0]


@pytest.fixture
def admin_view_table(ddb_local: local.DynamoDBLocal) -> Iterator[str]:
    """An empty admin view table (and its sync table: checkpoints, dead letters) for this test;
    ADMIN_VIEW_TABLE_NAME / ADMIN_VIEW_SYNC_TABLE_NAME point at them too. Returns the view table's name."""
    from adminview.tables import ADMIN_VIEW_TABLE, SYNC_TABLE

    with shared(
        (ADMIN_VIEW_TABLE, "AdminView", "ADMIN_VIEW_TABLE_NAME"),
        (SYNC_TABLE, "AdminViewSync", "ADMIN_VIEW_SYNC_TABLE_NAME"),
    ) as names:
        yield names[0]


@pytest.fixture(scope="module")
def module_tables(ddb_local: local.DynamoDBLocal) -> Iterator[None]:
    """The tables of ``shop_table`` and ``admin_view_table`` for a whole module: for a module whose tests read a
    shop seeded once (a test may add to it only what no other test of the module looks at)."""
    from adminview.tables import ADMIN_VIEW_TABLE, SYNC_TABLE
    from returns.models import RETURNS_TABLE
    from shop.models import SHOP_TABLE

    with shared(  # tables of the pool's other than a test's (``shop_table`` in the module's tests gets its own)
        (SHOP_TABLE, "ModuleShop", "SHOP_TABLE_NAME"),
        (RETURNS_TABLE, "ModuleReturns", "RETURNS_TABLE_NAME"),
        (ADMIN_VIEW_TABLE, "ModuleView", "ADMIN_VIEW_TABLE_NAME"),
        (SYNC_TABLE, "ModuleViewSync", "ADMIN_VIEW_SYNC_TABLE_NAME"),
    ):
        yield


@pytest.fixture
def checkpoint_table(ddb_local: local.DynamoDBLocal) -> Iterator[str]:
    """An empty backfill checkpoint table for this test; MIGRATIONS_TABLE_NAME points at it too."""
    from dynamo.checkpoints import CHECKPOINT_TABLE

    with shared((CHECKPOINT_TABLE, "ShopMigrations", "MIGRATIONS_TABLE_NAME")) as names:
        yield names[0]


@pytest.fixture(params=["partiql", "putitem"])
def anchor_writes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each of the sync's ways to write anchors (``ADMIN_VIEW_ANCHOR_WRITES``), forced: the test runs on both."""
    monkeypatch.setenv("ADMIN_VIEW_ANCHOR_WRITES", request.param)
    return str(request.param)
