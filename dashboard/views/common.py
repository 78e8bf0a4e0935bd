"""What every dashboard page shares: list-form parsing, paging links, the order lists' rows and CSV rows (each
order with its customer's profile, ``dashboard.profiles``).

Each list page: a validated ``ListForm`` -> one page from a selector/access pattern -> the page template, or
its ``#rows`` partial for htmx "load more", or (``?format=csv``) every row streamed. The first CSV page is
fetched before the response starts, so its calls are in the cost headers and an error is still a clean 4xx.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any, TypeVar
from urllib.parse import quote

from django import forms
from django.http import HttpRequest, HttpResponseBase
from django.template.response import TemplateResponse

from dashboard.cells import DASH, Cell, Row, amount_cell, id_url, timestamp, waited_cell
from dashboard.display import plain_amount
from dashboard.forms.lists import ListForm, first_error
from dashboard.htmx import HtmxHttpRequest
from dashboard.profiles import NOBODY, Profile, profiles_of
from dashboard.responses import error
from dynamo.no_answer import DYNAMODB_ERRORS, did_not_answer
from dynamo.paging import MAX_PAGE
from shop.errors import InvalidInput

log = logging.getLogger(__name__)
F = TypeVar("F", bound=forms.Form)
T = TypeVar("T")
CSV_PAGE = MAX_PAGE  # rows per Query while streaming a CSV export


def partial(request: HtmxHttpRequest, template: str, name: str) -> str:
    return f"{template}#{name}" if request.htmx else template


def next_url(request: HttpRequest, token: str | None) -> str | None:
    """This page's URL with the other parameters kept and ``cursor`` replaced (None: no more rows)."""
    if token is None:
        return None
    return _this_page(request, cursor=token, format=None)


def csv_url(request: HttpRequest) -> str:
    return _this_page(request, cursor=None, limit=None, format="csv")


def first_page_url(request: HttpRequest, **changes: str | None) -> str:
    """This page from its first row (its filter kept; no cursor, not CSV), with ``changes`` to its query."""
    return _this_page(request, cursor=None, format=None, **changes)


def range_url(request: HttpRequest, start: date, end: date) -> str:
    """This page over another range of days (its other parameters kept; no cursor, not CSV)."""
    return _this_page(request, cursor=None, format=None, **{"from": start.isoformat(), "to": end.isoformat()})


def _this_page(request: HttpRequest, **changes: str | None) -> str:
    """This page's URL with ``changes`` to its query (None: the parameter removed); the path quoted, so a
    prefixed id in it (``/customers/c%231/``) keeps its ``#``."""
    query = request.GET.copy()
    for name, value in changes.items():
        if value is None:
            query.pop(name, None)
        else:
            query[name] = value
    return f"{quote(request.path)}?{query.urlencode()}"


def refused_filter(
    request: HtmxHttpRequest, form: forms.Form, template: str, context: dict[str, Any]
) -> HttpResponseBase:
    """A filter the page cannot use: 400 with the page itself, the user's input kept and each error beside its
    control (the template shows ``form``'s errors and no results). "Load more" (htmx) and a CSV get the error
    message alone: neither has a form to show it in."""
    if request.htmx or request.GET.get("format") == "csv":
        return error(request, 400, first_error(form))
    return TemplateResponse(request, template, context, status=400)


def validated(form: F) -> F:
    """The bound form, valid; otherwise ``InvalidInput`` with its first error (the page answers 400)."""
    if not form.is_valid():
        raise InvalidInput(first_error(form))
    return form


def read_or_reason(read: Callable[[], T]) -> tuple[T | None, str | None]:
    """``(read(), None)``, or ``(None, why)`` when DynamoDB refused the read (a table not created yet, ...): for the
    part of a page that the rest does not need (the home page's numbers, a product's sales), which then says why
    instead. When DynamoDB does not answer, the error goes on: the page answers 503."""
    try:
        return read(), None
    except DYNAMODB_ERRORS as exc:
        if did_not_answer(exc):
            raise
        log.warning("left out of the page: %s", exc)
        return None, str(exc)


def list_form(request: HttpRequest) -> ListForm:
    return validated(ListForm(request.GET))


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


def with_profiles(rows: list[Any]) -> list[tuple[Any, Profile]]:
    """Each order row (anything with a ``customer_id``) with its customer's profile: one BatchGetItem."""
    profiles = profiles_of(row.customer_id for row in rows)
    return [(row, profiles.get(row.customer_id, NOBODY)) for row in rows]


def every_row_with_profiles(fetch: Callable[..., Any], **kwargs: Any) -> Iterator[tuple[Any, Profile]]:
    """All rows of a contract selector of orders, each with its customer's profile (one BatchGetItem a page)."""
    return (pair for rows in every_page(fetch, **kwargs) for pair in with_profiles(rows))


ORDER_CSV_HEADER = [
    "order_id",
    "customer_id",
    "date",
    "status",
    "total",
    "item_count",
    "customer_name",
    "customer_email",
]


ORDER_SECONDARY = frozenset({"items"})  # what a phone leaves out of an order list (its <th> says so too)


def customer_cell(customer_id: str, profile: Profile | None = None) -> Cell:
    """The customer of an order: their name (their id when the profile has none) linking to their page."""
    name = profile.name if profile is not None else None
    return Cell(name or customer_id, url=id_url("dashboard:customer", customer_id))


def order_row(
    row: Any, *, with_customer: bool, secondary: frozenset[str] = ORDER_SECONDARY, waited: bool = False
) -> Row:
    """One order of a list (an admin-view ``OrderRow`` or an ``Order``): order, customer (``with_customer``), date,
    how long it has waited (``waited``), status, total, item count; ``data-order-id`` on the row. ``secondary``
    names the columns (``status``, ``items``) a phone leaves out."""
    cells = [Cell(row.order_id, url=id_url("dashboard:order", row.order_id))]
    if with_customer:
        cells.append(customer_cell(row.customer_id))
    cells.append(Cell(timestamp(row.date) or DASH))
    if waited:
        cells.append(waited_cell(row.date))
    cells += [
        Cell(row.status or "unknown", secondary="status" in secondary),
        amount_cell(row.total),
        Cell(DASH if row.item_count is None else row.item_count, numeric=True, secondary="items" in secondary),
    ]
    return Row(cells, (("order-id", row.order_id),))


def order_csv_row(row: Any, profile: Profile = NOBODY) -> list[Any]:
    return [
        row.order_id,
        row.customer_id,
        row.date.isoformat() if row.date else None,
        row.status,
        plain_amount(row.total),
        row.item_count,
        profile.name,
        profile.email,
    ]
