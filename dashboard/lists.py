"""A list page declared once, as Django admin's ``ChangeList`` declares one: its columns, filter form, selector,
cursor salt and scope, and template; ``Listing.response`` turns that into the page, the htmx "load more" rows
and the streamed CSV (``?format=csv``). The stages stay apart, as in the admin: form -> signed cursor -> one
page of the selector -> cells -> template. The CSV's first page is fetched before the response starts, so its
calls are in the cost headers and an error is still a clean 4xx."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from itertools import islice
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast
from urllib.parse import quote

from django import forms
from django.http import HttpRequest, HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from dashboard import cursors
from dashboard.cells import DASH, Cell, Row, amount_cell, id_url, timestamp
from dashboard.display import plain_amount
from dashboard.forms.lists import ListForm, first_error
from dashboard.htmx import HtmxHttpRequest
from dashboard.profiles import with_profiles
from dashboard.responses import csv_response, domain_errors, error
from dashboard.selectors import MAX_ROWS
from shop.errors import InvalidInput

R = TypeVar("R")  # a record of the list: what one row shows
R_co = TypeVar("R_co", covariant=True)
F = TypeVar("F", bound=ListForm)
G = TypeVar("G", bound=forms.Form)
RowId = tuple[str, Callable[[R], str]]  # a row's ``data-*`` id: its name and its value
CSV_PAGE = MAX_ROWS  # rows per selector call while streaming a CSV export
TABLE_ROWS = "dashboard/_list_table.html#rows"  # a declared table's rows, which "load more" swaps in


class Paged(Protocol[R_co]):
    """What a selector answers: a page of rows and the position after its last (None: no more)."""

    @property
    def rows(self) -> Sequence[R_co]: ...

    @property
    def next(self) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class Column(Generic[R]):
    """One column for the page (``heading``, ``cell``) and the CSV (``csv``, ``value``), either side optional."""

    heading: str | None = None
    cell: Callable[[R], Cell] | None = None
    csv: str | None = None
    value: Callable[[R], object] | None = None
    secondary: bool = False


def link_column(heading: str, page: str, csv: str, value: Callable[[R], str]) -> Column[R]:
    return Column(heading, lambda r: Cell(value(r), url=id_url(page, value(r))), csv, value)


def text_column(
    heading: str, csv: str, value: Callable[[R], object], *, empty: str = DASH, numeric: bool = False, **more: Any
) -> Column[R]:
    """A value as text (``empty`` for none) on the page, as it is in the CSV."""

    def cell(record: R) -> Cell:
        shown = value(record)
        return Cell(empty if shown is None or shown == "" else shown, numeric=numeric)

    return Column(heading, cell, csv, value, **more)


def amount_column(heading: str, csv: str, value: Callable[[R], Decimal | None], **more: Any) -> Column[R]:
    return Column(heading, lambda r: amount_cell(value(r)), csv, lambda r: plain_amount(value(r)), **more)


def time_column(heading: str, csv: str, value: Callable[[R], datetime | None], **more: Any) -> Column[R]:
    return Column(heading, lambda r: Cell(timestamp(value(r)) or DASH), csv, lambda r: csv_value(value(r)), **more)


def csv_fields(*names: str) -> tuple[Column[Any], ...]:
    """CSV-only columns, each a record's attribute of its name: days and moments ISO 8601, amounts plain."""
    return tuple(Column(csv=name, value=_attribute(name)) for name in names)


def _attribute(name: str) -> Callable[[Any], object]:
    return lambda record: csv_value(getattr(record, name))


def csv_value(value: object) -> object:
    """A day or a moment (a datetime is a date) in ISO 8601, an amount as a plain decimal, else as it is."""
    if isinstance(value, date):
        return value.isoformat()
    return plain_amount(value) if isinstance(value, Decimal) else value


def page_columns(columns: Sequence[Column[R]]) -> list[Column[R]]:
    return [c for c in columns if c.cell is not None]


def csv_columns(columns: Sequence[Column[R]]) -> list[Column[R]]:
    return [c for c in columns if c.value is not None]


def csv_header(columns: Sequence[Column[R]]) -> list[str]:
    return [c.csv or "" for c in csv_columns(columns)]


def csv_values(columns: Sequence[Column[R]], record: R) -> list[object]:
    return [c.value(record) for c in columns if c.value is not None]


def row_of(columns: Sequence[Column[R]], record: R, data: tuple[tuple[str, str], ...] = ()) -> Row:
    cells = [c.cell(record)._replace(secondary=c.secondary) for c in columns if c.cell is not None]
    return Row(cells, data)


class Listing(Generic[F, R]):
    """A list page: a subclass sets ``template``, ``salt``, ``columns``, ``form_class`` and ``fetch``, and overrides
    the other hooks it needs (``frame``: the page around the rows; ``extra``: what follows them)."""

    template: ClassVar[str]
    salt: ClassVar[str]
    form_class: ClassVar[type[ListForm]] = ListForm
    columns: Sequence[Column[Any]] = ()  # a class attribute, or set per request (e.g. ages at this moment)
    template_rows: ClassVar[bool] = False  # rows holding form controls come to the template as records
    row_class = ""  # each <tr>'s class in dashboard/_list_table.html
    row_id: ClassVar[RowId[Any] | None] = None  # each <tr>'s data-* id
    profiles: ClassVar[bool] = False  # each row with its customer's profile (one BatchGetItem a page)

    def __init__(self, request: HtmxHttpRequest) -> None:
        self.request = request

    @classmethod
    def view(cls) -> Callable[..., HttpResponseBase]:
        return require_GET(domain_errors(lambda request, **kwargs: cls(request, **kwargs).response()))

    # --- the declaration ---------------------------------------------------------------------------------

    def form(self) -> F:
        return cast(F, self.form_class(self.request.GET))

    def fetch(self, form: F, *, limit: int, after: dict[str, Any] | None) -> Paged[Any]:
        raise NotImplementedError

    def scope(self, form: F) -> str:
        return ""

    def filename(self, form: F) -> str:
        return f"{self.salt}.csv"

    def join(self, rows: Sequence[Any], *, csv: bool) -> list[R]:
        """A page's records: each with its customer's profile when the list names them (the name alone on the page)."""
        return cast(list[R], with_profiles(rows, names_only=not csv)) if self.profiles else list(rows)

    def refused(self, form: F) -> dict[str, Any]:
        """The page's context when its filter is refused; by default the error page (400)."""
        raise InvalidInput(first_error(form))

    def frame(self, form: F, *, first_page: bool) -> dict[str, Any]:
        return {}

    def extra(self, form: F, page: Paged[Any]) -> dict[str, Any]:
        return {}

    # --- the machine -------------------------------------------------------------------------------------

    def response(self) -> HttpResponseBase:
        form = self.form()
        if not form.is_valid():
            return refused_filter(self.request, form, self.template, self.refused(form))
        # a forged cursor is refused (400) before anything is read, a CSV's too (which starts from the first row)
        after = cursors.decode(form.cleaned_data["cursor"], salt=self.salt, scope=self.scope(form))
        if form.wants_csv:
            return self.csv(form, self.every_record(form))
        context = self.frame(form, first_page=after is None)
        context |= self.page(form, after)
        return TemplateResponse(self.request, self.part(after) if self.request.htmx else self.template, context)

    def page(self, form: F, after: dict[str, Any] | None) -> dict[str, Any]:
        """The rows after ``after`` and the links on from them: what the declared table shows."""
        page = self.fetch(form, limit=form.cleaned_data["limit"], after=after)
        token = cursors.encode(page.next, salt=self.salt, scope=self.scope(form))
        return {
            "columns": page_columns(self.columns),
            "rows": self.shown(self.join(page.rows, csv=False)),
            "next_url": next_url(self.request, token, **self.kept_in_links()),
            "csv_url": csv_url(self.request, **self.kept_in_links()),
            "first_page": after is None,
            "row_class": self.row_class,
            **self.extra(form, page),
        }

    def kept_in_links(self) -> dict[str, str]:
        """What this list's own links (load more, CSV) add to the page's query: nothing, unless the page holds
        several lists."""
        return {}

    def part(self, after: dict[str, Any] | None) -> str:
        """The template and partial an htmx request gets: the rows after ``after`` ("load more")."""
        return f"{self.template}#rows" if self.template_rows else TABLE_ROWS

    def shown(self, records: list[R]) -> Sequence[object]:
        """The template's rows: the records (``template_rows``), or ``Row``s of the columns' cells and ``row_id``."""
        if self.template_rows:
            return records
        name, value = self.row_id or ("", None)
        return [row_of(self.columns, r, ((name, value(r)),) if value else ()) for r in records]

    def csv_columns(self, form: F) -> Sequence[Column[R]]:
        return self.columns

    def every_record(self, form: F) -> Iterator[R]:
        """Every record the filter matches, ``CSV_PAGE`` rows a call; the first page is fetched now."""
        pages = every_page(lambda limit, after: self.fetch(form, limit=limit, after=after))
        return (record for rows in pages for record in self.join(rows, csv=True))

    def csv(self, form: F, records: Iterator[R]) -> HttpResponseBase:
        columns = self.csv_columns(form)
        lines = (csv_values(columns, record) for record in records)
        return csv_response(self.filename(form), csv_header(columns), lines)


def every_page(fetch: Callable[..., Paged[Any]], **kwargs: Any) -> Iterator[Sequence[Any]]:
    """A selector's rows ``CSV_PAGE`` at a time, the first page fetched now (its calls in the cost headers)."""
    first = fetch(limit=CSV_PAGE, after=None, **kwargs)

    def pages() -> Iterator[Sequence[Any]]:
        page = first
        while True:
            yield page.rows
            if page.next is None:
                return
            page = fetch(limit=CSV_PAGE, after=page.next, **kwargs)

    return pages()


def pages_of(records: Iterator[R], size: int) -> Iterator[list[R]]:
    """``records`` in lists of ``size`` (the last shorter): a streamed export's pages, for a read per page."""
    while page := list(islice(records, size)):
        yield page


# --- links that keep the page's other parameters (as the admin's ``get_query_string``) ----------------------


def partial(request: HtmxHttpRequest, template: str, name: str) -> str:
    return f"{template}#{name}" if request.htmx else template


def next_url(request: HttpRequest, token: str | None, **changes: str | None) -> str | None:
    """This page's URL with the other parameters kept and ``cursor`` replaced (None: no more rows)."""
    if token is None:
        return None
    return this_page(request, cursor=token, format=None, **changes)


def csv_url(request: HttpRequest, **changes: str | None) -> str:
    return this_page(request, cursor=None, limit=None, format="csv", **changes)


def first_page_url(request: HttpRequest, **changes: str | None) -> str:
    return this_page(request, cursor=None, format=None, **changes)


def range_url(request: HttpRequest, start: date, end: date) -> str:
    return this_page(request, cursor=None, format=None, **{"from": start.isoformat(), "to": end.isoformat()})


def this_page(request: HttpRequest, **changes: str | None) -> str:
    """This page's URL with ``changes`` to its query (None: removed); the path quoted, so an id keeps its ``#``."""
    query = request.GET.copy()
    for name, value in changes.items():
        if value is None:
            query.pop(name, None)
        else:
            query[name] = value
    return f"{quote(request.path)}?{query.urlencode()}"


# --- refused parameters --------------------------------------------------------------------------------------


def refused_filter(
    request: HtmxHttpRequest, form: forms.Form, template: str, context: dict[str, Any]
) -> HttpResponseBase:
    """A filter the page cannot use: 400 with the page, the input kept and each error beside its control;
    "load more" and a CSV get the message alone, having no form to show it in."""
    if request.htmx or request.GET.get("format") == "csv":
        return error(request, 400, first_error(form))
    return TemplateResponse(request, template, context, status=400)


def validated(form: G) -> G:
    """The bound form, valid; otherwise ``InvalidInput`` with its first error (the page answers 400)."""
    if not form.is_valid():
        raise InvalidInput(first_error(form))
    return form
