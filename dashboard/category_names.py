"""The catalogue's categories as the pages know them, each answer a constant number of calls (never a Scan):
``known_categories`` from the sync's per-category product counts, ``category_has_orders`` from the category
lists (one Query per write shard and one BatchGetItem of at most one order)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from adminview.reads import number_reads, selectors

FIRST_DAY, LAST_DAY = date(1970, 1, 1), date(9999, 12, 30)


def category_has_orders(name: str) -> bool:
    """Whether any order, of any date, holds an item of the category ``name`` (exact name)."""
    return bool(selectors.category_orders(category=name, start=FIRST_DAY, end=LAST_DAY, limit=1).rows)


def known_categories(*, also: Iterable[str | None] = ()) -> list[str]:
    """The catalogue's categories by name (ignoring case), each spelled as first found."""
    found: dict[str, str] = {}
    for name in [*(n for n in also if n), *number_reads.categories()]:
        found.setdefault(name.casefold(), name)
    return sorted(found.values(), key=str.casefold)


def matching(name: str, known: Iterable[str]) -> str | None:
    """The known category ``name`` means, ignoring case and surrounding spaces ("beauty " means "Beauty")."""
    wanted = name.strip().casefold()
    return next((k for k in known if k.strip().casefold() == wanted), None)
