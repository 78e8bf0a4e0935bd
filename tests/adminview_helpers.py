"""Helpers for tests that need the admin view: drain the shop stream into it, read it back."""

from __future__ import annotations

from typing import Any

import pytest

from adminview.poller import Stats, sync_once
from adminview.sources import shop


def sync_now(**kwargs: Any) -> Stats:
    """Drain the shop table's stream into the admin view once, via the same handler the poller and Lambda use
    (checkpoints kept, so calling it again applies only what is new)."""
    return sync_once(**kwargs)


def break_projection_of(monkeypatch: pytest.MonkeyPatch, source_pk: str) -> None:
    """Make the shop source fail for every record of ``source_pk`` (a simulated bug), as a poison record would."""
    real = shop.SOURCE.anchor_of

    def broken(key: tuple[str, str], image: Any) -> Any:
        if key[0] == source_pk:
            raise ValueError("cannot project this (simulated bug)")
        return real(key, image)

    monkeypatch.setattr(shop.SOURCE, "anchor_of", broken)
