"""The cells and rows of a table that a view prepares and the ``cells`` / ``table_rows`` filters render
(``dashboard.templatetags.rows``).

The list pages' rows (orders, invoices), the explorer, the page sections and the order page's tables are
rendered from these in Python, not by a template loop per cell: a template spends several microseconds on
every variable and filter, more on an attribute of an object that is not a dict (its lookup tries ``obj[name]``
first and handles the exception).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache
from html import escape
from typing import NamedTuple, overload
from urllib.parse import quote

from django.urls import get_script_prefix, reverse
from django.utils import timezone
from django.utils.safestring import SafeData, SafeString, mark_safe

from shop.models import Payment

DASH = "—"  # an empty cell
_PLACEHOLDER = "__id__"


@lru_cache(maxsize=64)
def _around(name: str, script_prefix: str) -> tuple[str, str]:
    url = reverse(name, args=[_PLACEHOLDER])
    before, _, after = url.partition(_PLACEHOLDER)
    return before, after


def id_url(name: str, value: object) -> str:
    """The same URL as ``reverse(name, args=[value])``, but the pattern is reversed once per (name, script
    prefix) with a placeholder and each call only percent-quotes the id into it (no ``<>&"'`` left)."""
    before, after = _around(name, get_script_prefix())
    return f"{before}{quote(str(value), safe='')}{after}"


def timestamp(value: object) -> str:
    """``YYYY-MM-DD HH:MM:SS`` in the current time zone (as the ``date:"Y-m-d H:i:s"`` filter shows it, without
    its format parser); empty for anything but a datetime."""
    if isinstance(value, datetime):
        if timezone.is_aware(value):
            value = timezone.localtime(value)
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return ""


class Cell(NamedTuple):
    text: object  # escaped when shown, unless it is already safe HTML (``mark_safe``, ``format_html``)
    nested: bool = False  # indented JSON of a map or list: shown in <pre>
    url: str | None = None  # the cell links there
    numeric: bool = False  # right-aligned (class "num")

    def html(self) -> str:
        """Escaped as Django's ``conditional_escape`` does (``html.escape``, quotes included). Called for every
        cell of long tables, hence the unpacking and the plain-string fast path."""
        text, nested, url, numeric = self
        shown = str(text) if isinstance(text, SafeData) else escape(text if type(text) is str else str(text))
        if url:
            shown = f'<a href="{escape(url)}">{shown}</a>'
        elif nested:
            shown = f'<pre class="nested">{shown}</pre>'
        return f'<td class="num">{shown}</td>' if numeric else f"<td>{shown}</td>"


def payment_list(payments: Iterable[Payment]) -> SafeString:
    """An invoice's payments as a ``<ul>`` (type, amount, transaction id), the content of its payments cell."""
    items = [
        f"<li>{escape(p.type or '?')} {'?' if p.amount is None else escape(str(p.amount))}"
        + (f' <span class="mono">{escape(p.transaction_id)}</span>' if p.transaction_id else "")
        + "</li>"
        for p in payments
    ]
    return mark_safe(f'<ul class="payments">{"".join(items) or "<li>none</li>"}</ul>')


class Row(NamedTuple):
    """A table row: its cells and its ``data-*`` attributes (``(("order-id", "1"),)`` is ``data-order-id="1"``),
    which tests and scripts find rows by."""

    cells: Sequence[Cell]
    data: tuple[tuple[str, str], ...] = ()

    def start_tag(self, row_class: str) -> str:
        data = "".join(f' data-{name}="{escape(value)}"' for name, value in self.data)
        return f'<tr class="{escape(row_class)}"{data}>'


class LazyCells(Sequence[Cell]):
    """A row whose cells are made only when asked for (``row[i]``); ``html`` renders the row without making
    them, which the ``cells`` and ``table_rows`` filters use."""

    __slots__ = ()

    def html(self) -> str:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> Cell: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Cell]: ...
    def __getitem__(self, index: int | slice) -> Cell | Sequence[Cell]:
        if isinstance(index, slice):
            return [self.cell(i) for i in range(len(self))[index]]
        return self.cell(range(len(self))[index])

    def cell(self, index: int) -> Cell:
        raise NotImplementedError
