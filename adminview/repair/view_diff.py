"""What differs between the admin view and what its source tables imply: counts and a few example keys."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adminview.core.schema import Key as ViewKey

Image = dict[str, Any]

EXAMPLES = 10
KINDS = ("missing", "extra", "differing")


@dataclass(frozen=True)
class Change:
    kind: str  # missing | extra | differing
    key: ViewKey
    expected: Image | None
    actual: Image | None


@dataclass
class Diff:
    """What differed (verify) or had to change (rebuild): counts and a few example keys of each kind."""

    missing: int = 0
    extra: int = 0
    differing: int = 0
    contended: int = 0  # partitions rebuild gave up on: the sync kept writing them
    live_counters: int = 0  # counters that changed while the walk ran: left for the next one
    source_items: int = 0  # items scanned in the source tables
    view_items: int = 0
    view_was_empty: bool = False  # the view held nothing when the walk began: there were no view items to walk
    written: int = 0  # view items put or deleted
    seconds: float = 0.0
    unprojectable: dict[str, str] = field(default_factory=dict)  # source partition: why the view cannot hold it
    examples: dict[str, list[ViewKey]] = field(default_factory=lambda: {k: [] for k in KINDS})
    max_examples: int = EXAMPLES
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def clean(self) -> bool:
        return not (self.missing or self.extra or self.differing or self.contended or self.unprojectable)

    def cannot_project(self, pk: str, reason: str) -> None:
        """A source partition the view cannot be made from (its records are dead letters): reported, not written."""
        with self._lock:
            self.unprojectable.setdefault(pk, reason)

    def add(self, changes: list[Change]) -> None:
        with self._lock:
            for change in changes:
                setattr(self, change.kind, getattr(self, change.kind) + 1)
                if len(self.examples[change.kind]) < self.max_examples:
                    self.examples[change.kind].append(change.key)

    def count(self, **counts: int) -> None:
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    def summary(self, examples: int = 5, link: Callable[[ViewKey], str | None] | None = None) -> str:
        """Counts, then a few example keys of each kind; ``link`` names a page about an example's partition
        (appended to its line when it returns one)."""
        line = f"missing {self.missing}, extra {self.extra}, differing {self.differing}"
        if self.contended:
            line += f", {self.contended} partitions still changing (the sync kept writing them: run again)"
        if self.live_counters:
            line += f"; {self.live_counters} counters changed during the walk and were left for the next one"
        if self.unprojectable:
            line += (
                f"; {len(self.unprojectable)} source partitions cannot be projected (their records are dead "
                "letters: fix the cause, then replay them)"
            )
        unprojectable = sorted(self.unprojectable.items())[:examples]
        shown = [(f"cannot project: {pk}: {why}", (pk, "")) for pk, why in unprojectable]
        for kind in KINDS:
            shown += [(f"{kind}: {pk} {sk}", (pk, sk)) for pk, sk in sorted(self.examples[kind])[:examples]]
        for text, key in shown:
            page = link(key) if link else None
            line += f"\n  {text}" + (f"  {page}" if page else "")
        return line

    def rate_line(self, *, writes: bool = False) -> str:
        rate = (self.source_items + self.view_items) / self.seconds if self.seconds else 0.0
        line = (
            f"scanned {self.source_items} source items and {self.view_items} view items in {self.seconds:.1f}s "
            f"({rate:.0f} items/s)"
        )
        if self.view_was_empty:
            line += " (the view held nothing when the walk began)"
        return line + (f", wrote {self.written} view items" if writes else "")


def compare(expected: dict[ViewKey, Image], actual: dict[ViewKey, Image]) -> list[Change]:
    changes = [
        Change("missing" if key not in actual else "differing", key, item, actual.get(key))
        for key, item in expected.items()
        if actual.get(key) != item
    ]
    changes += [Change("extra", key, None, item) for key, item in actual.items() if key not in expected]
    return changes
