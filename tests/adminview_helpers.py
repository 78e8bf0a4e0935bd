"""Helpers for tests that need the admin view: drain the shop stream into it, read it back."""

from __future__ import annotations

from typing import Any

from adminview.poller import Stats, sync_once


def sync_now(**kwargs: Any) -> Stats:
    """Drain the shop table's stream into the admin view once, via the same handler the poller and Lambda use
    (checkpoints kept, so calling it again applies only what is new)."""
    return sync_once(**kwargs)
