"""Flags and progress bars shared by ``rebuild_adminview`` and ``verify_adminview``."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import CommandParser
from tqdm import tqdm

from adminview.repair.table_walk import DEFAULT_PAGE, DEFAULT_SEGMENTS, MAX_SEGMENTS
from dynamo.arguments import int_between


def add_walk_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--segments",
        type=int_between(1, MAX_SEGMENTS),
        default=DEFAULT_SEGMENTS,
        help="parallel Scan segments of each table (default: %(default)s)",
    )
    parser.add_argument(
        "--rate-limit",
        default=None,
        metavar="UNITS|P%",
        help="capacity units per second for reads and for writes of each table (e.g. 200), or a share of "
        "each table's provisioned capacity (e.g. 25%%); default: unlimited",
    )
    parser.add_argument(
        "--page-size",
        type=int_between(1, 1000),
        default=DEFAULT_PAGE,
        help="items per Scan page (memory per segment; default: %(default)s)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (logs, CI)")


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
