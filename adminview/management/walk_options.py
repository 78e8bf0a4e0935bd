"""Flags and progress bars shared by ``rebuild_adminview`` and ``verify_adminview``."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import CommandParser
from tqdm import tqdm

from adminview.repair.table_walk import DEFAULT_PAGE
from dynamo import arguments
from dynamo.paging import MAX_PAGE


def add_walk_arguments(parser: CommandParser) -> None:
    arguments.add_walk_arguments(parser, page_size=DEFAULT_PAGE, max_page=MAX_PAGE, notes=("", "; memory per segment"))


def walk_settings(options: dict[str, Any]) -> dict[str, Any]:
    """What ``add_walk_arguments`` parsed, as ``rebuild`` and ``verify`` take it."""
    return {name: options[name] for name in ("segments", "page_size", "rate_limit")}


@contextmanager
def progress_bar(description: str, *, disable: bool) -> Iterator[Callable[[int], None]]:
    """A thread-safe ``update(n)`` for a tqdm bar (segment threads report into it)."""
    lock = threading.Lock()
    bar: tqdm[Any] = tqdm(desc=description, unit=" items", disable=disable or None, mininterval=0.5)

    def update(n: int) -> None:
        with lock:
            bar.update(n)

    try:
        yield update
    finally:
        bar.close()
