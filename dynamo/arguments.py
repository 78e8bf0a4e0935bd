"""argparse types of the commands' options, in the standard library alone: the demo's options
(``shop.demo_options``) are read by ``scripts/run --help`` before anything is installed."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def int_between(low: int, high: int | None = None) -> Callable[[str], int]:
    """argparse type: a whole number from ``low`` to ``high`` (None: no bound above)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from exc
        if value < low or (high is not None and value > high):
            bound = f"at least {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"{text!r} must be {bound}")
        return value

    return parse


whole_number = int_between(0)  # a count that may be zero
positive_int = int_between(1)  # segments, workers, ports, page sizes
