"""Table cells built in Python, as Django's admin builds its change-list cells, for the ``cells`` / ``table_rows``
filters. The one module that makes HTML in Python, with one escape path: every value goes through ``format_html``
/ ``format_html_join``, so only HTML made here (a payment list, a link) passes through as it is."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import quote

from django.urls import get_script_prefix, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from dashboard.carriers import tracking_url
from dashboard.display import money, waited, when
from shop.models import Payment

DASH = "—"  # an empty cell
_PLACEHOLDER = "__id__"


@lru_cache(maxsize=64)
def _around(name: str, script_prefix: str) -> tuple[str, str]:
    url = reverse(name, args=[_PLACEHOLDER])
    before, _, after = url.partition(_PLACEHOLDER)
    return before, after


def id_url(name: str, value: object) -> str:
    """A per-row link to the page ``name`` of one id: reversed once per (name, script prefix) with a placeholder,
    where ``reverse`` would match the URL patterns for every row. The id is quoted but for ``_.-~`` (``reverse``
    leaves ``&``, ``+``, ``:``): the same page, and a URL that needs no HTML escaping."""
    before, after = _around(name, get_script_prefix())
    return f"{before}{quote(str(value), safe='')}{after}"


def timestamp(value: object) -> str:
    return when(value) if isinstance(value, datetime) else ""


class Cell(NamedTuple):
    text: object  # escaped when shown, unless it is HTML made here (``payment_list``)
    nested: bool = False  # indented JSON of a map or list: shown in <pre>
    url: str | None = None  # the cell links there
    numeric: bool = False  # right-aligned (class "num")
    secondary: bool = False  # left out on a phone (class "secondary", as its column's <th>)

    def html(self) -> SafeString:
        if self.url:
            content = format_html('<a href="{}">{}</a>', self.url, self.text)
        elif self.nested:
            content = format_html('<pre class="nested">{}</pre>', self.text)
        else:
            content = format_html("{}", self.text)
        classes = " ".join(name for name, on in (("num", self.numeric), ("secondary", self.secondary)) if on)
        return (
            format_html('<td class="{}">{}</td>', classes, content) if classes else format_html("<td>{}</td>", content)
        )


def amount_cell(value: object) -> Cell:
    """An amount as ``{{ value|money }}`` shows it, right-aligned."""
    return Cell(money(value) or DASH, numeric=True)


def waited_cell(value: object) -> Cell:
    return Cell(waited(value) or DASH, numeric=True)


def tracking_link(carrier: str | None, number: str | None) -> SafeString | str:
    """A tracking number linking to its carrier's page (another site: no opener, no referrer), else the number."""
    url = tracking_url(carrier, number)
    if url is None:
        return number or DASH
    return format_html('<a href="{}" rel="noopener noreferrer">{}</a>', url, number)


def tracking_links(shipments: Sequence[tuple[str | None, str]]) -> SafeString | str:
    if not shipments:
        return DASH
    return format_html_join("", "<div>{}</div>", ((tracking_link(c, n),) for c, n in shipments))


class Row(NamedTuple):
    """A table row: its cells and its ``data-*`` attributes, which tests and scripts find rows by."""

    cells: Sequence[Cell]
    data: tuple[tuple[str, str], ...] = ()


def cells_html(cells: Iterable[Cell]) -> SafeString:
    return format_html_join("", "{}", ((cell.html(),) for cell in cells))


def rows_html(rows: Iterable[Row | Sequence[Cell]], row_class: str) -> SafeString:
    return format_html_join("\n", "{}", ((_row_html(row, row_class),) for row in rows))


def _row_html(row: Row | Sequence[Cell], row_class: str) -> SafeString:
    cells, data = (row.cells, row.data) if isinstance(row, Row) else (row, ())
    attributes = format_html_join("", ' data-{}="{}"', data)
    return format_html('<tr class="{}"{}>{}</tr>', row_class, attributes, cells_html(cells))


def payment_list(payments: Iterable[Payment]) -> SafeString:
    """An invoice's payments cell: a ``<ul>`` of type, amount, transaction id."""
    items = format_html_join(
        "",
        "<li>{} {}{}</li>",
        (
            (
                p.type or "?",
                "?" if p.amount is None else money(p.amount),
                format_html(' <span class="mono">{}</span>', p.transaction_id) if p.transaction_id else "",
            )
            for p in payments
        ),
    )
    return format_html('<ul class="payments">{}</ul>', items or format_html("<li>{}</li>", "none"))
