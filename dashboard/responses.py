"""Error pages and CSV streaming, shared by the views."""

from __future__ import annotations

import csv
import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Concatenate, ParamSpec, TypeVar

from django.http import HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render

from dashboard.htmx import HtmxHttpRequest
from dynamo.errors import DomainError

P = ParamSpec("P")
R = TypeVar("R", bound=HtmxHttpRequest)

TITLES = {400: "Bad request", 403: "Forbidden", 404: "Not found", 409: "Conflict", 503: "Unavailable"}


def error(request: HtmxHttpRequest, status: int, message: str) -> HttpResponse:
    """The error page (or, for htmx, just its message fragment) with a readable message, never a traceback."""
    template = "dashboard/error.html" + ("#message" if request.htmx else "")
    return render(
        request, template, {"status": status, "title": TITLES.get(status, "Error"), "message": message}, status=status
    )


def domain_errors(
    view: Callable[Concatenate[R, P], HttpResponseBase],
) -> Callable[Concatenate[R, P], HttpResponseBase]:
    """A domain error becomes the error page with its class's status (``shop.errors``: bad ids, dates, cursors
    and parameters 400, unknown ids 404, conflicts 409, busy 503); anything else is a bug and stays a 500."""

    @functools.wraps(view)
    def wrapper(request: R, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponseBase:
        try:
            return view(request, *args, **kwargs)
        except DomainError as exc:
            return error(request, exc.http_status, str(exc))

    return wrapper


class _Echo:
    def write(self, value: str) -> str:
        return value


def csv_response(filename: str, header: list[str], rows: Iterable[list[Any]]) -> StreamingHttpResponse:
    """Stream ``rows`` as CSV after ``header``; nothing is buffered beyond the selector's current page."""
    writer = csv.writer(_Echo())

    def lines() -> Iterator[str]:
        yield writer.writerow(header)
        for row in rows:
            yield writer.writerow(["" if v is None else v for v in row])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response
