"""How fresh the admin view is, and the line each page that reads it shows. The heartbeats are one Query of the
sync table, cached for ``CACHE_S`` per process, so a page costs at most one extra call whatever sources it names."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from botocore.exceptions import BotoCoreError, ClientError
from pynamodb.exceptions import PynamoDBException

from adminview.core.sources import sources
from adminview.reads.sync_freshness import Freshness, freshness_by_source, heartbeats, least_fresh
from dynamo.no_answer import did_not_answer

log = logging.getLogger(__name__)
CACHE_S = 1.0
clock: Callable[[], float] = time.monotonic
_lock = threading.Lock()
_cached: list[tuple[float, dict[str, Freshness] | None]] = []
BySource = Mapping[str, Freshness]


def _read() -> dict[str, Freshness] | None:
    """None when the sync's state cannot be read (the page says so). DynamoDB not answering goes on: the page's
    own reads would not be answered either, so it answers 503 at once."""
    try:
        return freshness_by_source(heartbeats())
    except (ClientError, BotoCoreError, PynamoDBException) as exc:
        if did_not_answer(exc):
            raise
        log.warning("sync freshness unavailable: %s", exc)
        return None


def current() -> dict[str, Freshness] | None:
    """Each source's freshness, by its name (None: the sync's state could not be read)."""
    with _lock:
        if _cached and clock() - _cached[0][0] < CACHE_S:
            return _cached[0][1]
    value = _read()
    with _lock:
        _cached[:] = [(clock(), value)]
    return value


def reset() -> None:
    with _lock:
        _cached.clear()


@dataclass(frozen=True)
class Statement:
    """One sentence of the line: how fresh the view is for these sources (``freshness`` None: unknown)."""

    names: tuple[str, ...]
    freshness: Freshness | None

    @property
    def names_text(self) -> str:
        """``shop``, ``shop and returns``, ``a, b and c``."""
        *first, last = self.names
        return f"{', '.join(first)} and {last}" if first else last


def _state(found: Freshness) -> str:
    if not found.synced:
        return "not synced"
    if found.caught_up:
        return "caught up"
    return "behind" if found.behind_s is not None else "applied"


def statements(by_source: BySource | None, names: Sequence[str] = ()) -> list[Statement]:
    """The line for the sources ``names`` (all when none): one sentence when all are in one state, else one each."""
    known = [s.name for s in sources()]
    wanted = tuple(names) or tuple(known)
    if unknown := [n for n in wanted if n not in known]:
        raise ValueError(f"no source of the admin view is named {', '.join(unknown)}")
    if by_source is None:
        return [Statement(wanted, None)]
    found = [by_source.get(name, Freshness(None, None)) for name in wanted]
    states = {_state(f) for f in found}
    if len(found) == 1 or (len(states) == 1 and states != {"applied"}):
        return [Statement(wanted, least_fresh(found))]
    return [Statement((name,), f) for name, f in zip(wanted, found, strict=True)]
