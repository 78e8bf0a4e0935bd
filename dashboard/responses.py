"""Error pages and CSV streaming, shared by the views."""

from __future__ import annotations

import csv
import functools
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Concatenate, ParamSpec, TypeVar

from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render

from dashboard.htmx import HtmxHttpRequest
from domain.errors import DomainError
from dynamo.no_answer import DYNAMODB_ERRORS, did_not_answer

P = ParamSpec("P")
R = TypeVar("R", bound=HtmxHttpRequest)
H = TypeVar("H", bound=HttpResponseBase)

TITLES = {400: "Bad request", 403: "Forbidden", 404: "Not found", 409: "Conflict", 503: "Unavailable"}
# What a "DynamoDB did not answer" page tells the client to wait before trying again (the ``Retry-After`` header).
RETRY_AFTER_S = 5
NO_ANSWER = "DynamoDB is not answering, so this page cannot be shown now; try again in a few seconds."
NO_ANSWER_TO_CHANGE = (
    "DynamoDB did not answer, so this change may or may not have been made: reload the page to see before trying again."
)


def error(request: HtmxHttpRequest, status: int, message: str, *, link: tuple[str, str] | None = None) -> HttpResponse:
    """The error page (for htmx its message alone), never a traceback; ``link`` (url, text) follows the message."""
    template = "dashboard/error.html" + ("#message" if request.htmx else "")
    context = {"status": status, "title": TITLES.get(status, "Error"), "message": message, "link": link}
    return render(request, template, context, status=status)


def no_answer(request: HtmxHttpRequest, message: str, *, link: tuple[str, str] | None = None) -> HttpResponse:
    """503 with ``Retry-After``: DynamoDB did not answer. Trying a change again is safe: the writes are
    conditioned on what was read, so one that did land makes the second attempt a 409."""
    return retry_later(error(request, 503, message, link=link))


def retry_later(response: H) -> H:
    """``Retry-After`` on an answer to a request DynamoDB did not answer: the client may try again then."""
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


class Unanswered(Exception):
    """DynamoDB did not answer (a timeout, a lost connection): whether a write happened is unknown."""


@contextmanager
def unanswered_raised() -> Iterator[None]:
    """DynamoDB not answering as ``Unanswered``, for a view to say so in place; other errors go on."""
    try:
        yield
    except DYNAMODB_ERRORS as exc:
        if not did_not_answer(exc):
            raise
        raise Unanswered(str(exc)) from exc


def domain_errors(
    view: Callable[Concatenate[R, P], HttpResponseBase],
) -> Callable[Concatenate[R, P], HttpResponseBase]:
    """A domain error becomes the error page with its class's status; anything else is a bug and stays a 500."""

    @functools.wraps(view)
    def wrapper(request: R, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponseBase:
        try:
            return view(request, *args, **kwargs)
        except DomainError as exc:
            return error(request, exc.http_status, str(exc))

    return wrapper


def json_answer(answer: Callable[[], dict[str, Any]]) -> JsonResponse:
    """``answer()`` as JSON; a domain error as ``{"error": ...}`` with its status: a JSON client reads no error page."""
    try:
        return JsonResponse(answer(), json_dumps_params={"ensure_ascii": False})
    except DomainError as exc:
        return JsonResponse({"error": str(exc)}, status=exc.http_status)


class _Echo:
    def write(self, value: str) -> str:
        return value


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what makes a spreadsheet read a text cell as a formula


def spreadsheet_cell(value: object) -> object:
    """A CSV cell: text a spreadsheet would run as a formula (``=HYPERLINK(...)``) behind a quote; numbers as
    they are (``-5.00`` stays a number)."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_response(filename: str, header: list[str], rows: Iterable[Iterable[object]]) -> StreamingHttpResponse:
    """Stream ``rows`` as CSV after ``header``, buffering nothing beyond the selector's page; no cell opens as a
    formula (``spreadsheet_cell``)."""
    writer = csv.writer(_Echo())

    def lines() -> Iterator[str]:
        yield writer.writerow(header)
        for row in rows:
            yield writer.writerow([spreadsheet_cell(value) for value in row])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response
