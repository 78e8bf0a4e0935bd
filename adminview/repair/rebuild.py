"""Rebuild and verify the admin view while staff act and the stream sync applies records (``docs/repair.md``):
both walk the tables and act on the partitions whose view items differ, never from what the Scan saw while an
anchor is stored; ``verify`` reads them again until they agree or ``settle_s`` has passed, ``rebuild`` repairs them.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from adminview.repair import repair
from adminview.repair.flags import Flag
from adminview.repair.table_walk import DEFAULT_PAGE, ignore
from adminview.repair.view_diff import EXAMPLES, Change, Diff
from adminview.repair.walk import Walk, walk
from dynamo.arguments import DEFAULT_SEGMENTS
from dynamo.instrumentation import run_in_context

DEFAULT_SETTLE_S = 3.0
MAX_RECHECKS = 8  # partitions read again at once


def verify(
    *,
    segments: int = DEFAULT_SEGMENTS,
    page_size: int = DEFAULT_PAGE,
    rate_limit: str | None = None,
    settle_s: float = DEFAULT_SETTLE_S,
    examples: int = EXAMPLES,
    on_scan: Callable[[int], None] = ignore,
    sleep: Callable[[float], None] = time.sleep,
) -> Diff:
    """Compare the view with what the source tables imply; a differing partition is reported only if it still
    differs after ``settle_s``: the live sync applies a change within moments, a real divergence stays."""
    if settle_s < 0:
        raise ValueError("settle time must not be negative")

    flagged: dict[tuple[str, str], Flag] = {}  # grows only with differences
    lock = threading.Lock()

    def note(_found: Walk, flag: Flag) -> None:
        with lock:
            before = flagged.get((flag.source.name, flag.pk))
            extras = flag.extras | (before.extras if before else frozenset())
            flagged[(flag.source.name, flag.pk)] = Flag(flag.source, flag.pk, extras)

    checking = walk(note, segments=segments, page_size=page_size, rate_limit=rate_limit, examples=examples)
    checking.on_scan = on_scan
    checking.on_counters = lambda found, differences: found.diff.add(
        [Change("differing", d.key, None, None) for d in differences]
    )
    found = checking.run()
    started = time.monotonic()
    _recheck(checking, list(flagged.values()), settle_s, sleep)
    found.seconds += time.monotonic() - started
    return found


def _recheck(walked: Walk, flags: list[Flag], settle_s: float, sleep: Callable[[float], None]) -> None:
    """Read the flagged partitions again, pauses growing, until they agree or ``settle_s`` has passed."""
    waited, pause = 0.0, min(0.2, settle_s)
    while flags:
        with ThreadPoolExecutor(max_workers=min(len(flags), MAX_RECHECKS)) as pool:
            changes = list(pool.map(run_in_context(functools.partial(_changes, walked)), flags))
        still = [(flag, found) for flag, found in zip(flags, changes, strict=True) if found]
        if not still or waited >= settle_s:
            for _flag, found in still:
                walked.diff.add(found)
            return
        flags = [flag for flag, _found in still]
        sleep(pause)
        waited += pause
        pause = min(pause * 2, settle_s - waited)


def _changes(walked: Walk, flag: Flag) -> list[Change]:
    """The flagged partition read again in the protocol's order: what a repair of it would change."""
    found = repair.planned(walked, flag)
    return found.changes if found is not None else []


def rebuild(
    *,
    segments: int = DEFAULT_SEGMENTS,
    page_size: int = DEFAULT_PAGE,
    rate_limit: str | None = None,
    examples: int = EXAMPLES,
    on_scan: Callable[[int], None] = ignore,
    on_write: Callable[[int], None] = ignore,
) -> Diff:
    """Make the view equal to what the source tables imply, live: returns what had to change."""
    repairing = walk(
        repair.repair_flag, segments=segments, page_size=page_size, rate_limit=rate_limit, examples=examples
    )
    repairing.on_scan, repairing.on_write = on_scan, on_write
    later = repair.LaterSums(repairing.view)
    repairing.on_batch = functools.partial(repair.repair_flags, later=later)
    repairing.after_sources = later.commit
    repairing.on_counters = repair.repair_counters
    repairing.on_orphans = repair.delete_orphans
    return repairing.run()
