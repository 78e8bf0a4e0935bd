"""Pages holding several lists (a warehouse's, a product's), each a registry pattern: the page shows each
list's first page; ``?list=<name>`` with a cursor is one list's "load more", with ``format=csv`` all of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpResponseBase
from django.template.response import TemplateResponse

from dashboard import cursors
from dashboard.cells import DASH, Cell, id_url
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import TABLE_ROWS, Column, list_form, row_of, this_page
from dashboard.responses import csv_response
from dashboard.views.patterns import csv_rows
from shop import keys
from shop.errors import InvalidInput
from shop.pattern_registry import PATTERNS, AccessPattern

LIST = "list"
# ids in key attributes link to their page
_LINKS = {
    keys.PRODUCT: "dashboard:product",
    keys.ORDER: "dashboard:order",
    keys.CUSTOMER: "dashboard:customer",
    keys.WAREHOUSE: "dashboard:warehouse",
}


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    pattern_name: str
    params: dict[str, Any]
    columns: tuple[Column[Any], ...]
    options: dict[str, Any] = field(default_factory=dict)  # function options not in the registry (newest_first)
    # what the columns are given for a page's items (each with its customer's profile, say: one read a page)
    join: Callable[[list[Any]], list[Any]] | None = None

    @property
    def pattern(self) -> AccessPattern:
        return PATTERNS[self.pattern_name]

    @property
    def row_class(self) -> str:
        return f"{self.name}-row"


def link(value: Any) -> str | None:
    """``/products/2001/`` for ``p#2001`` (and orders, customers, warehouses); None for anything else."""
    if not isinstance(value, str):
        return None
    for prefix, page in _LINKS.items():
        if value.startswith(prefix) and "#" not in value[len(prefix) :]:
            return id_url(page, value[len(prefix) :])
    return None


def key_cell(key: str | None) -> Cell:
    """A stored key (``w#301``) as its bare id (``301``), linking to its page when it has one."""
    if not key:
        return Cell(DASH)
    return Cell(keys.strip(key), url=link(key))


def _list_url(request: HtmxHttpRequest, section: str, **extra: str) -> str:
    return this_page(request, **{"cursor": None, "format": None, "limit": None, LIST: section, **extra})


def section_context(request: HtmxHttpRequest, section: Section, *, limit: int, cursor: str | None) -> dict[str, Any]:
    """One page of a section, as the ``dashboard/_section.html`` template shows it."""
    scope = "|".join([request.path, section.name, *(f"{k}={v}" for k, v in sorted(section.params.items()))])
    start_key = cursors.decode(cursor, salt="section", scope=scope)
    page = section.pattern.page(limit=limit, start_key=start_key, **section.params, **section.options)
    records = section.join(page.items) if section.join else page.items
    rows = [row_of(section.columns, record) for record in records]
    token = cursors.encode(page.next_key, salt="section", scope=scope)
    return {
        "section": section,
        "columns": section.columns,
        "row_class": section.row_class,
        "rows": rows,
        "next_url": _list_url(request, section.name, cursor=token, limit=str(limit)) if token else None,
        "csv_url": _list_url(request, section.name, format="csv"),
        "first_page": start_key is None,
    }


def sections_response(
    request: HtmxHttpRequest, sections: list[Section], context: dict[str, Any]
) -> HttpResponseBase | None:
    """The answer to a one-list request (load more, CSV), or None when the whole page is asked for."""
    form = list_form(request)
    which = request.GET.get(LIST)
    by_name = {s.name: s for s in sections}
    if which is None:
        if form.wants_csv:
            raise InvalidInput(f"which list? add list={' or list='.join(by_name)}")
        context["sections"] = [
            section_context(request, s, limit=form.cleaned_data["limit"], cursor=None) for s in sections
        ]
        return None
    if which not in by_name:
        raise InvalidInput(f"unknown list {which!r}; this page has {', '.join(by_name)}")
    section = by_name[which]
    if form.wants_csv:
        params = {**section.params, **section.options}
        header, rows = csv_rows(section.pattern, params)
        return csv_response(f"{request.path.strip('/').replace('/', '-')}-{which}.csv", header, rows)
    one = section_context(request, section, limit=form.cleaned_data["limit"], cursor=form.cleaned_data["cursor"])
    return TemplateResponse(request, TABLE_ROWS, one)
