"""Helpers for tests that need the admin view: drain the shop stream into it, read it back."""

from __future__ import annotations

from typing import Any

import pytest

from adminview import projection
from adminview.poller import Stats, sync_once


def sync_now(**kwargs: Any) -> Stats:
    """Drain the shop table's stream into the admin view once, via the same handler the poller and Lambda use
    (checkpoints kept, so calling it again applies only what is new)."""
    return sync_once(**kwargs)


def break_projection_of(monkeypatch: pytest.MonkeyPatch, source_pk: str) -> None:
    """Make the projection fail for every record of ``source_pk`` (a simulated bug), as a poison record would."""
    real = projection.project

    def broken(old: Any, new: Any, shards: int | None = None) -> Any:
        if (new or old or {}).get("PK", {}).get("S") == source_pk:
            raise ValueError("cannot project this (simulated bug)")
        return real(old, new, shards)

    monkeypatch.setattr(projection, "project", broken)
