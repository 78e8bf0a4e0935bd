"""argparse types of the commands' options, in the standard library alone: the demo's options
(``shop.demo_options``) are read by ``scripts/run --help`` before anything is installed."""

from __future__ import annotations

import argparse


def whole_number(text: str) -> int:
    """argparse type: an integer >= 0 (a count that may be zero)."""
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from exc
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (segments, workers, ports, page sizes)."""
    value = whole_number(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value
