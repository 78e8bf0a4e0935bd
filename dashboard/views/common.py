"""What the pages not yet declared as lists (``dashboard.lists``) still share: following a contract selector
(``RowsPage``: ``rows``/``next``) to its end for a CSV, ``CSV_PAGE`` rows a call; the first page is fetched before
the response starts, so its calls are in the cost headers and an error is still a clean 4xx."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from dashboard.selectors import MAX_ROWS

CSV_PAGE = MAX_ROWS  # rows per Query while streaming a CSV export


def every_page(fetch: Callable[..., Any], **kwargs: Any) -> Iterator[list[Any]]:
    """The rows of a contract selector (``RowsPage``: ``rows``/``next``) a page at a time; the first page is
    fetched now."""
    page = fetch(limit=CSV_PAGE, after=None, **kwargs)

    def pages() -> Iterator[list[Any]]:
        current = page
        while True:
            yield current.rows
            if current.next is None:
                return
            current = fetch(limit=CSV_PAGE, after=current.next, **kwargs)

    return pages()


def every_row(fetch: Callable[..., Any], **kwargs: Any) -> Iterator[Any]:
    """All rows of a contract selector; the first page is fetched now."""
    return (row for rows in every_page(fetch, **kwargs) for row in rows)
