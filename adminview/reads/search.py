"""One box finds anything: customers by the words of their name and the parts of their email, products by the
words of their name, orders by id, payment transaction id or tracking number, and a found customer's orders
(``docs/admin-view.md``, "Search"). DynamoDB has no text search, so every match is a ``begins_with`` on the terms
the sync normalized (``schema.search_entry``), under the longest word typed, at most ``MAX_QUERIES`` Queries a
page: a page's calls stay the same whatever the shop holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from adminview.core import schema, values
from adminview.reads import selectors
from adminview.reads.reads import Item, RowsPage, get_many, query, read_position
from dynamo.paging import MAX_PAGE, check_limit
from shop.errors import InvalidInput

MAX_TERM = 100
MAX_QUERIES = 4  # word Queries a page may make before it hands back what it found and a position
QUERY_BATCH = 100  # entries a word Query reads (most are kept: the other words filter few out)
EXACT_LIMIT = 10  # orders a transaction id or a tracking number may name
KINDS = ("customer", "product", "order")
CUSTOMER, PRODUCT, ORDER = KINDS


@dataclass(frozen=True)
class FoundOrder(schema.CustomerOrderRow):
    """An order shown beside its customer (``latest_orders``): its entry, and its status from its summary."""

    status: str | None = None


@dataclass(frozen=True)
class Found:
    kind: str  # customer | product | order
    id: str
    name: str | None  # an order's: its customer's
    email: str | None


def words_of(text: str) -> list[str]:
    """The words a search looks for; ``InvalidInput`` when the text is too short or too long."""
    words = schema.words_of(text) if isinstance(text, str) else []
    if not words or max(len(w) for w in words) < schema.MIN_SEARCH:
        raise InvalidInput(f"type at least {schema.MIN_SEARCH} letters or digits in a row")
    if len(text) > MAX_TERM:
        raise InvalidInput(f"a search is at most {MAX_TERM} characters")
    return words


def term_of(text: str) -> str:
    """The text as a cursor's scope: normalized, its words joined by single spaces (validated as ``words_of``)."""
    return " ".join(words_of(text))


def search(*, text: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Found]:
    """A page of matches: on the first, the orders the text names; then customers and products, each once per
    page, in the order of the word they were found by."""
    words = words_of(text)
    check_limit(limit)
    position = read_position(after, forward=True)
    rows = _orders_named(text) if position is None else []
    found, last, more = _by_words(words, limit, position)
    rows += found
    return RowsPage(rows, {"after": last} if more and last else None)


def entries(*, text: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Item]:
    """The search entries of the text's longest word, as stored: the one Query a search reads first (the explorer's
    pattern; ``search`` then keeps the customers and products every word matches)."""
    word = max(words_of(text), key=len)
    check_limit(limit)
    items, more = query(schema.search_partition(word), limit=limit, after=read_position(after, forward=True),
                        begins_with=word)  # fmt: skip
    last = items[-1].get(schema.SK) if items else None
    return RowsPage(items, {"after": last} if more and isinstance(last, str) else None)


def _by_words(words: list[str], limit: int, position: str | None) -> tuple[list[Found], str | None, bool]:
    """Customers and products every word matches, read under the longest word; the position, and whether more."""
    key_word = max(words, key=len)
    partition = schema.search_partition(key_word)
    seen: dict[tuple[str, str], Found] = {}
    start, more, queries = position, True, 0
    while more and len(seen) < limit and queries < MAX_QUERIES:
        found, more = query(partition, limit=QUERY_BATCH, after=start, begins_with=key_word)
        queries += 1
        for raw in found:
            start = values.string(raw, schema.SK)
            match = _match(raw, words)
            if match is not None:
                seen.setdefault((match.kind, match.id), match)
                if len(seen) == limit:
                    more = more or raw is not found[-1]
                    break
        more = more and start is not None
    return list(seen.values()), start, more


def _match(raw: Item, words: list[str]) -> Found | None:
    """The customer or product an entry is about, if every word matches its stored name (and email)."""
    entry = schema.SEARCH_KIND.read(raw)
    if entry.found not in (CUSTOMER, PRODUCT):  # a whole email's entry also stands for the words it starts with
        return None
    if not schema.matches(words, [*schema.words_of(entry.name), *schema.words_of(entry.email)]):
        return None
    return Found(entry.found, entry.id, entry.name, entry.email)


def _orders_named(text: str) -> list[Found]:
    """The orders a text names: a one-token text by id (digits) or a payment's transaction id; a one-token text
    or one with digits (a tracking number as printed, ``1Z 999-AA1``) by a tracking number; with their customers."""
    token = text.strip()
    one_token = bool(token) and not any(c.isspace() for c in token)
    ids = [token] if token.isdigit() else []
    if one_token and len(token) <= selectors.MAX_TRANSACTION_ID:
        payments = selectors.payment_entries(transaction_id=token).rows
        ids += [schema.PAYMENT_KIND.read(r).order_id for r in payments]
    term = schema.tracking_term(token)
    if (one_token or any(c.isdigit() for c in token)) and len(term) >= schema.MIN_SEARCH:
        entries, _more = query(schema.search_partition(term), limit=EXACT_LIMIT, begins_with=f"{term}#{ORDER}#")
        ids += [schema.SEARCH_KIND.read(r).id for r in entries]
    ids = [oid for oid in dict.fromkeys(ids) if oid]
    if not ids:
        return []
    found = [row for s in selectors.summaries(ids) if s is not None and (row := selectors.order_row(s)).customer_id]
    each = list(dict.fromkeys(row.customer_id for row in found))  # two orders of one customer: one profile read
    read = map(schema.PROFILE_KIND.read, selectors.customer_profiles(customer_ids=each))
    profiles = dict(zip(each, read, strict=True))
    return [
        Found(ORDER, row.order_id, profiles[row.customer_id].name, profiles[row.customer_id].email) for row in found
    ]


def latest_orders(*, customer_id: str, count: int) -> list[FoundOrder]:
    """A found customer's latest orders, newest first: one Query of their order entries, one BatchGetItem of the
    summaries (asked for beside each customer found, so the search page's own calls stay the same)."""
    entries = selectors.customer_order_entries(customer_id=customer_id, limit=count).rows
    found = {e.order_id: e for raw in entries if (e := schema.CUSTOMER_ORDER_KIND.read(raw)).order_id}
    summaries = get_many([schema.order_anchor(i) for i in found], [schema.ORDER_KIND.attribute("status")])
    read = (schema.ORDER_KIND.read(s).status for s in summaries)
    return [FoundOrder(**vars(e), status=status) for e, status in zip(found.values(), read, strict=True)]


def customer_orders(found: Found) -> Iterator[Found]:
    """Every order of a found customer, newest first, as order matches (a CSV's rows): a Query a page."""
    after: dict[str, Any] | None = None
    while True:
        page = selectors.customer_order_entries(customer_id=found.id, limit=MAX_PAGE, after=after)
        for entry in page.rows:
            yield Found(ORDER, schema.CUSTOMER_ORDER_KIND.read(entry).order_id, found.name, found.email)
        if page.next is None:
            return
        after = page.next
