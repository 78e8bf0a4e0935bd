"""Search customers and products by a word of their name or the start of a customer's email: one Query of the
view's search entries (``schema.search_entry``) under the prefix typed, so a page costs the same calls whatever
the shop holds (DynamoDB has no text search; this is a ``begins_with`` on words the sync normalized).

The text is normalized as the entries are (case and accents ignored); it must hold at least ``MIN_SEARCH``
letters or digits. A customer whose name has two words starting with the text is found once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adminview.core import schema
from adminview.reads.reads import Raw, RowsPage, query, read_position
from dynamo import ddb_json
from dynamo.paging import check_limit
from shop.errors import InvalidInput

MAX_TERM = 100
KINDS = ("customer", "product")


@dataclass(frozen=True)
class Found:
    kind: str  # customer | product
    id: str
    name: str | None
    email: str | None


def term_of(text: str) -> str:
    """The normalized term a search looks for; ``InvalidInput`` when it is too short or too long."""
    term = schema.normalized(text) if isinstance(text, str) else ""
    if len([c for c in term if c.isalnum()]) < schema.MIN_SEARCH:
        raise InvalidInput(f"type at least {schema.MIN_SEARCH} letters or digits")
    if len(term) > MAX_TERM:
        raise InvalidInput(f"a search is at most {MAX_TERM} characters")
    return term


def search(*, text: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Found]:
    """Customers and products with a word (or, customers, an email) starting with ``text``, by that word; each
    once per page, and never again on a later page."""
    term = term_of(text)
    check_limit(limit)
    position = read_position(after, forward=True)
    seen: dict[tuple[str, str], Raw] = {}
    start, more = position, True
    while more and len(seen) <= limit:
        found, more = query(schema.search_partition(term), limit=limit + 1, after=start, begins_with=term)
        for raw in found:
            seen.setdefault((ddb_json.string(raw, "Found") or "", ddb_json.string(raw, "Id") or ""), raw)
        start = ddb_json.string(found[-1], schema.SK) if found else None
        more = more and start is not None
    rows = list(seen.values())[:limit]
    last = ddb_json.string(rows[-1], schema.SK) if rows else None
    page = [
        Found(
            ddb_json.string(r, "Found") or "",
            ddb_json.string(r, "Id") or "",
            ddb_json.string(r, "Name"),
            ddb_json.string(r, "Email"),
        )
        for r in rows
    ]
    return RowsPage(page, {"after": last} if len(seen) > limit and last else None)
