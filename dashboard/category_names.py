"""The catalogue's categories as the pages know them: which names exist, and which one a typed name means.

The admin view keeps no list of every category yet, so this module answers from the reads it has, each a
constant number of DynamoDB calls whatever the tables hold (never a Scan):

- ``category_has_orders``: the category-orders index (``adminview.selectors.category_orders``, one Query per
  write shard and one BatchGetItem of at most one order) over every date.
- ``known_categories``: the categories sold over the last ``SOLD_WITHIN_DAYS`` days (the sync's counters,
  ``adminview.number_reads.by_category``; not ``uncategorized``, the numbers' name for items without one), plus any
  the caller already knows (the product's own).

A category that only products hold and that sold nothing lately is missing from both. A view read of every
category (kept by the sync from the products' ``Category``) would make both exact; these functions are where the
pages would call it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from adminview import number_reads, selectors
from adminview.schema import UNCATEGORIZED
from shop.timestamps import now

SOLD_WITHIN_DAYS = 366  # the longest range the counters are read over (dashboard.forms.MAX_STATS_DAYS)
FIRST_DAY, LAST_DAY = date(1970, 1, 1), date(9999, 12, 30)


def category_has_orders(name: str) -> bool:
    """Whether any order, of any date, holds an item of the category ``name`` (exact name)."""
    return bool(selectors.category_orders(category=name, start=FIRST_DAY, end=LAST_DAY, limit=1).rows)


def known_categories(*, also: Iterable[str | None] = ()) -> list[str]:
    """The categories the catalogue is known to have, by name (ignoring case), each spelled as first found."""
    today = now().date()
    sold = number_reads.by_category(start=today - timedelta(days=SOLD_WITHIN_DAYS - 1), end=today)
    found: dict[str, str] = {}
    for name in [*(n for n in also if n), *(row.category for row in sold if row.category != UNCATEGORIZED)]:
        found.setdefault(name.casefold(), name)
    return sorted(found.values(), key=str.casefold)


def matching(name: str, known: Iterable[str]) -> str | None:
    """The known category ``name`` means, ignoring case and surrounding spaces ("beauty " means "Beauty")."""
    wanted = name.strip().casefold()
    return next((k for k in known if k.strip().casefold() == wanted), None)
