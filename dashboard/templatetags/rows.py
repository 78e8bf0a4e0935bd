"""Filters for what every row of a list renders, at a fraction of the general tags' cost (a list page renders
50 rows; these were most of its rendering time).

- ``{{ id|link:"dashboard:order" }}``: the same URL as ``{% url "dashboard:order" id %}``
  (``dashboard.cells.id_url``: reversed once, then each row only quotes its id into it).
- ``{{ when|timestamp }}``: ``YYYY-MM-DD HH:MM:SS`` in the current time zone, as ``date:"Y-m-d H:i:s"`` shows
  it, without the date filter's format parser; empty for anything but a datetime (so ``|default:"—"`` still applies).
- ``{{ row|cells }}`` and ``{{ rows|table_rows:"item-row" }}``: the ``<td>`` cells of a row, or the ``<tr>``
  rows of a table, prepared by the view (``dashboard.cells.Cell`` and ``Row``: the explorer and the page
  sections show up to 500 rows of a dozen columns), built in Python instead of a template loop per row and
  cell; ``{{ names|header_cells }}``: the ``<th>`` cells of a header row.
- ``{% named_url "dashboard:pending" %}``: ``{% url %}`` for a URL without arguments, reversed once per
  (name, script prefix): the top bar has eight of them on every page.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from html import escape

from django import template
from django.urls import get_script_prefix, reverse
from django.utils.safestring import SafeString, mark_safe

from dashboard.cells import Cell, LazyCells, Row, id_url, timestamp

register = template.Library()


@register.filter
def link(value: object, name: str) -> SafeString:
    """Safe without escaping: ``id_url`` percent-quotes the id."""
    return mark_safe(id_url(name, value))


@lru_cache(maxsize=64)
def _reversed(name: str, script_prefix: str) -> str:
    return reverse(name)


@register.simple_tag
def named_url(name: str) -> str:
    return _reversed(name, get_script_prefix())


@register.filter
def cells(row: Iterable[Cell]) -> SafeString:
    return mark_safe(_cells(row))


def _cells(row: Iterable[Cell]) -> str:
    return row.html() if isinstance(row, LazyCells) else "".join([cell.html() for cell in row])


@register.filter
def table_rows(rows: Iterable[Row | Iterable[Cell]], row_class: str) -> SafeString:
    """``<tr class="row_class">`` (with a ``Row``'s ``data-*`` attributes) and its cells for each row: a long
    table in one call, no loop node per row."""
    start = f'<tr class="{escape(row_class)}">'
    shown = [
        f"{row.start_tag(row_class)}{_cells(row.cells)}</tr>" if isinstance(row, Row) else f"{start}{_cells(row)}</tr>"
        for row in rows
    ]
    return mark_safe("\n".join(shown))


@register.filter
def header_cells(names: Iterable[object]) -> SafeString:
    """``<th>`` cells of a table's header row."""
    return mark_safe("".join(f"<th>{escape(str(name))}</th>" for name in names))


register.filter("timestamp", timestamp)
