"""Pages holding several lists (a warehouse's, a product's), each a registry pattern: the page shows each
list's first page; ``?list=<name>`` with a cursor is one list's "load more", with ``format=csv`` all of it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpResponseBase

from dashboard.cells import DASH, Cell, id_url
from dashboard.forms.lists import ListForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import TABLE_ROWS, Column, Listing, Paged, validated
from dashboard.selectors import paged
from dashboard.views.patterns import pattern_csv
from shop import keys
from shop.errors import InvalidInput
from shop.pattern_registry import AccessPattern

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
    pattern: AccessPattern
    params: dict[str, Any]
    columns: tuple[Column[Any], ...]
    options: dict[str, Any] = field(default_factory=dict)  # function options not in the registry (newest_first)
    # what the columns are given for a page's items (each with its customer's profile, say: one read a page)
    join: Callable[[list[Any]], list[Any]] | None = None


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


class SectionList(Listing[ListForm, Any]):
    """One section as a list, named by ``?list=`` in its links; its CSV is every item as the explorer exports it
    (``PK``, ``SK`` first). It answers its rows alone: the page around them is its owner's."""

    template = TABLE_ROWS
    salt = "section"

    def __init__(self, request: HtmxHttpRequest, section: Section) -> None:
        super().__init__(request)
        self.section = section
        self.columns = section.columns
        self.row_class = f"{section.name}-row"

    def scope(self, form: ListForm) -> str:
        section = self.section
        return "|".join([self.request.path, section.name, *(f"{k}={v}" for k, v in sorted(section.params.items()))])

    def fetch(self, form: ListForm, *, limit: int, after: dict[str, Any] | None) -> Paged[Any]:
        section = self.section
        return paged(section.pattern.page(limit=limit, start_key=after, **section.params, **section.options))

    def join(self, rows: Sequence[Any], *, csv: bool) -> list[Any]:
        return self.section.join(list(rows)) if self.section.join and not csv else list(rows)

    def kept_in_links(self) -> dict[str, str]:
        return {LIST: self.section.name}

    def csv(self, form: ListForm, records: Iterator[Any]) -> HttpResponseBase:
        filename = f"{self.request.path.strip('/').replace('/', '-')}-{self.section.name}.csv"
        return pattern_csv(filename, self.section.pattern, records)


def sections_response(
    request: HtmxHttpRequest, sections: list[Section], context: dict[str, Any]
) -> HttpResponseBase | None:
    """The answer to a one-list request (load more, CSV), or None when the whole page is asked for."""
    lists = {s.name: SectionList(request, s) for s in sections}
    which = request.GET.get(LIST)
    if which is None:
        form = validated(ListForm(request.GET))
        if form.wants_csv:
            raise InvalidInput(f"which list? add list={' or list='.join(lists)}")
        context["sections"] = [{"section": one.section, **one.page(form, None)} for one in lists.values()]
        return None
    if which not in lists:
        raise InvalidInput(f"unknown list {which!r}; this page has {', '.join(lists)}")
    return lists[which].response()
