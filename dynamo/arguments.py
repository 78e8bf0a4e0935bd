"""argparse types of the commands' options, in the standard library alone: the demo's options
(``shop.demo_options``) are read by ``scripts/run --help`` before anything is installed."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

N = TypeVar("N", int, float)


def _between(read: Callable[[str], N], noun: str, low: N, high: N | None, unit: str = "") -> Callable[[str], N]:
    def parse(text: str) -> N:
        try:
            value = read(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from exc
        if value < low or (high is not None and value > high):
            bound = f"at least {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"{text!r} must be {bound}{unit}")
        return value

    return parse


def int_between(low: int, high: int | None = None) -> Callable[[str], int]:
    """argparse type: a whole number from ``low`` to ``high`` (None: no bound above)."""
    return _between(int, "a whole number", low, high)


def seconds_between(low: float, high: float) -> Callable[[str], float]:
    """argparse type: a number of seconds (fractions too) from ``low`` to ``high``."""
    return _between(float, "a number of seconds", low, high, " seconds")


whole_number = int_between(0)  # a count that may be zero
positive_int = int_between(1)  # segments, workers, ports, page sizes


DEFAULT_SEGMENTS = 4  # parallel Scan segments (threads) of a table walk
MAX_SEGMENTS = 64


def check_segments(segments: int) -> int:
    if not 1 <= segments <= MAX_SEGMENTS:
        raise ValueError(f"segments must be between 1 and {MAX_SEGMENTS}, got {segments}")
    return segments


def add_walk_arguments(
    parser: argparse.ArgumentParser, *, page_size: int, max_page: int, notes: tuple[str, str] = ("", "")
) -> None:
    """The options of the commands that walk whole tables in parallel Scan segments (``backfill``,
    ``rebuild_adminview``, ``verify_adminview``); ``notes`` end the help of ``--segments`` and ``--page-size``."""
    parser.add_argument(
        "--segments",
        type=int_between(1, MAX_SEGMENTS),
        default=DEFAULT_SEGMENTS,
        help=f"parallel Scan segments of each table walked (default: %(default)s{notes[0]})",
    )
    parser.add_argument(
        "--rate-limit",
        default=None,
        metavar="UNITS|P%",
        help="capacity units per second for reads and for writes of each table walked (e.g. 200), or a share of "
        "its provisioned capacity (e.g. 25%%); default: unlimited",
    )
    parser.add_argument(
        "--page-size",
        type=int_between(1, max_page),
        default=page_size,
        help=f"items per Scan page (default: %(default)s{notes[1]})",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (logs, CI)")
