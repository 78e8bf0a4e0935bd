"""Where the tables live.

Endpoint, region and credentials come only from the standard AWS configuration (see docs/configuration.md, "Tables
and DynamoDB"), which botocore resolves when a client is created. Nothing here knows whether the engine is DynamoDB
Local or AWS.
"""

from __future__ import annotations

import os
from functools import cache
from typing import TypeVar

import botocore.session

DEFAULT_ADMIN_VIEW_TABLE = "AdminViewTable"
DEFAULT_MIGRATIONS_TABLE = "ShopMigrations"
FALLBACK_REGION = "us-east-1"
N = TypeVar("N", int, float)


def env_number(name: str, default: N) -> N:
    """Variable ``name`` as a number of ``default``'s type (absent or empty: ``default``); a ValueError naming it."""
    value = os.environ.get(name, "").strip()
    try:
        return type(default)(value) if value else default
    except ValueError:
        what = "a whole number" if isinstance(default, int) else "a number"
        raise ValueError(f"{name} must be {what}, not {value!r}") from None


def admin_view_table_name() -> str:
    return os.environ.get("ADMIN_VIEW_TABLE_NAME") or DEFAULT_ADMIN_VIEW_TABLE


ANCHOR_WRITES_VARIABLE = "ADMIN_VIEW_ANCHOR_WRITES"
ANCHOR_WRITES = ("auto", "partiql", "putitem")


def anchor_writes() -> str:
    """How the sync writes the view's anchors: ``partiql`` (conditioned statements, 25 a call), ``putitem`` (one
    conditional PutItem each), or ``auto`` (the default): PartiQL where the engine keeps each statement's condition."""
    value = (os.environ.get(ANCHOR_WRITES_VARIABLE) or "auto").strip().lower()
    if value not in ANCHOR_WRITES:
        raise ValueError(f"{ANCHOR_WRITES_VARIABLE} must be one of {', '.join(ANCHOR_WRITES)}, not {value!r}")
    return value


def migrations_table_name() -> str:
    """Where backfills keep their per-segment checkpoints (``manage.py backfill``)."""
    return os.environ.get("MIGRATIONS_TABLE_NAME") or DEFAULT_MIGRATIONS_TABLE


def region() -> str:
    """The region botocore resolves (env, then config file); PynamoDB 6 has no default, so we pass it."""
    resolved = _session().get_config_variable("region")
    return resolved or FALLBACK_REGION


@cache
def _session() -> botocore.session.Session:
    """One botocore session per process: making one costs milliseconds of CPU, and it still reads the environment
    each time it is asked (the config files once)."""
    return botocore.session.Session()
