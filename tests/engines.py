"""Pointing one test or benchmark process at another engine, or another patience, after its first call.

The product never needs this: each of its processes settles its endpoint and patience before its first call
(``dynamo.models.apply_environment``). PynamoDB keeps the connection a model makes at its first call, replacing it
only when the table name changes, and has no public way to drop it; so this module, which only the tests and the
benchmark import, writes its cached ``_connection`` itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from dynamo.local import ENDPOINT_VARIABLES, LOCAL_CREDENTIALS, set_environment
from dynamo.models import all_models, apply_environment, use_patience
from dynamo.patience import Patience


def forget_connections() -> None:
    """Every connection, the models' included, is made afresh from the environment at its next call."""
    apply_environment()
    for model in all_models():
        if "_connection" in vars(model):
            model._connection = None


@contextmanager
def pointed_at(endpoint: str) -> Iterator[None]:
    """Every client made inside the block (and every subprocess started there) talks to ``endpoint``; none keeps
    talking to the previous one, on the way in or out."""
    names = [*LOCAL_CREDENTIALS, *ENDPOINT_VARIABLES]
    saved = {name: os.environ.get(name, "") for name in names}
    set_environment({**LOCAL_CREDENTIALS, **dict.fromkeys(ENDPOINT_VARIABLES, endpoint)})
    forget_connections()
    try:
        yield
    finally:
        set_environment(saved)
        forget_connections()


def patience_now(patience: Patience) -> None:
    """``use_patience`` for a process that has already made calls: its connections are made afresh too."""
    use_patience(patience)
    forget_connections()
