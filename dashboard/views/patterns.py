"""The access-pattern explorer: every named read, its form, its items, the exact requests sent and their cost.

``/patterns/<name>/`` validates the parameters with the registry's own checks (the CLI's), runs one page of the
pattern inside its own call recording, and shows the items with the requests botocore sent (JSON, boto3,
``aws dynamodb``) and their cost; "load more" follows a signed cursor that also carries the page's columns, and
``?format=csv`` streams every item (``PK``, ``SK``, then every attribute the pattern's items can have).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from botocore.exceptions import ClientError
from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET
from pynamodb.exceptions import PynamoDBException

from dashboard import cursors
from dashboard.forms.filters import PatternForm
from dashboard.forms.lists import first_error
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import CSV_PAGE, csv_url, next_url, partial
from dashboard.patterns import boto3_call, cell, cli_line, find, grouped, request_json, stored_row
from dashboard.responses import csv_response, domain_errors, error
from dynamo.instrumentation import CallLog, recording
from dynamo.no_answer import did_not_answer
from shop.pattern_registry import AccessPattern

SALT = "pattern"


@require_GET
def patterns_index(request: HtmxHttpRequest) -> TemplateResponse:
    return TemplateResponse(request, "dashboard/patterns.html", {"groups": grouped()})


def _scope(pattern: AccessPattern, params: dict[str, str]) -> str:
    return "|".join([pattern.name, *(f"{k}={v}" for k, v in sorted(params.items()))])


def csv_rows(pattern: AccessPattern, params: dict[str, str]) -> tuple[list[str], Iterator[list[object]]]:
    """The header and every row (the first page is read now, so an error is still a clean 4xx)."""
    columns = pattern.columns()
    first = pattern.page(limit=CSV_PAGE, start_key=None, **params)

    def rows() -> Iterator[list[object]]:
        page = first
        while True:
            for item in page.items:
                yield csv_line(pattern.plain(item), columns)
            if page.next_key is None:
                return
            page = pattern.page(limit=CSV_PAGE, start_key=page.next_key, **params)

    return columns, rows()


def csv_line(item: dict[str, Any], columns: list[str]) -> list[object]:
    """One item's CSV cells: text and numbers as they are (``csv_response`` guards text against formulas),
    anything else (maps, lists, booleans, null) as ``cell`` shows it."""
    return [
        v if isinstance(v, str | int | float) and not isinstance(v, bool) else cell(v) for v in map(item.get, columns)
    ]


def _columns_of(pattern: AccessPattern, items: list[Mapping[str, Any]]) -> list[str]:
    present = {name for item in items for name in item}
    return [c for c in pattern.columns() if c in present] or ["PK", "SK"]


def shown_calls(log: CallLog) -> list[dict[str, Any]]:
    """Each recorded call (``call``) and its request three ways: ``json``, ``boto3`` and ``cli``."""
    return [
        {
            "call": call,
            "json": request_json(call.operation, call.request or {}),
            "boto3": boto3_call(call.operation, call.request or {}),
            "cli": cli_line(call.operation, call.request or {}),
        }
        for call in log.calls
    ]


def dynamodb_errors(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """A request DynamoDB refuses (a table or index not created yet) is a 503 saying so: the explorer reaches every
    table, including ones a deployment may lack. No answer at all (timeouts, throttling beyond the retries) is left
    to ``DynamoDBOutageMiddleware``, like on every page."""

    @functools.wraps(view)
    def wrapper(request: HtmxHttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        try:
            return view(request, *args, **kwargs)
        except (ClientError, PynamoDBException) as exc:
            if did_not_answer(exc):
                raise
            cause = exc.cause if isinstance(exc, PynamoDBException) and exc.cause else exc
            code = cause.response.get("Error", {}).get("Code") if isinstance(cause, ClientError) else None
            return error(request, 503, f"DynamoDB refused the request: {code or type(cause).__name__}")

    return wrapper


@require_GET
@dynamodb_errors
@domain_errors
def pattern_page(request: HtmxHttpRequest, name: str) -> HttpResponseBase:
    pattern = find(name)
    if pattern is None:
        return error(request, 404, f"no access pattern named {name!r}; see the list at /patterns/")
    submitted = bool(request.GET) or not pattern.params
    form = PatternForm(pattern.params, request.GET if submitted else None)
    context: dict[str, Any] = {"pattern": pattern, "form": form, "submitted": submitted}
    if not submitted:
        return TemplateResponse(request, "dashboard/pattern.html", context)
    if not form.is_valid():
        message = first_error(form)
        if request.htmx or request.GET.get("format") == "csv":
            return error(request, 400, message)
        return TemplateResponse(request, "dashboard/pattern.html", {**context, "message": message}, status=400)
    params: dict[str, str] = form.cleaned_data["params"]
    scope = _scope(pattern, params)
    position = cursors.decode(form.cleaned_data["cursor"], salt=SALT, scope=scope)
    if form.wants_csv:
        header, rows = csv_rows(pattern, params)
        return csv_response(f"{pattern.name}.csv", header, rows)
    start_key = position["k"] if position else None
    with recording() as log:
        page = pattern.page(limit=form.cleaned_data["limit"], start_key=start_key, **params)
    items = [pattern.attributes(item) for item in page.items]
    columns = position["c"] if position else _columns_of(pattern, items)
    token = cursors.encode({"k": page.next_key, "c": columns} if page.next_key else None, salt=SALT, scope=scope)
    context |= {
        "columns": columns,
        "rows": [stored_row(item, columns) for item in items],
        "next_url": next_url(request, token),
        "csv_url": csv_url(request),
        "first_page": position is None,
        "calls": shown_calls(log),
        "log": log,
        "items_count": len(items),
    }
    return TemplateResponse(request, partial(request, "dashboard/pattern.html", "rows"), context)
