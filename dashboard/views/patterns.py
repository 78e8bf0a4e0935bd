"""The access-pattern explorer and its read-only PartiQL box (see docs/explorer.md). Each page runs inside its
own call recording, so it shows the exact requests sent and their cost."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from botocore.exceptions import ClientError
from django.http import HttpResponseBase, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_http_methods
from pynamodb.exceptions import PynamoDBException

from dashboard import cursors
from dashboard.forms.filters import PARTIQL, PatternForm
from dashboard.forms.lists import first_error
from dashboard.forms.lookups import PartiqlForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import csv_url, every_page, next_url, partial, refused_filter
from dashboard.partiql import Statement, checked, statement_of
from dashboard.patterns import boto3_call, cell, cli_line, find, grouped, request_json, stored_row
from dashboard.responses import csv_response, domain_errors, error
from dashboard.selectors import paged
from dynamo.client import client_of
from dynamo.instrumentation import CallLog, recording
from dynamo.no_answer import did_not_answer
from shop.errors import InvalidInput
from shop.pattern_registry import AccessPattern

SALT = "pattern"
PARTIQL_PAGE = 50


@require_GET
def patterns_index(request: HtmxHttpRequest) -> TemplateResponse:
    return TemplateResponse(request, "dashboard/patterns.html", {"groups": grouped()})


def pattern_csv(filename: str, pattern: AccessPattern, items: Iterable[Any]) -> HttpResponseBase:
    """``items`` of ``pattern`` as the explorer exports them: a column for every attribute the pattern's items may
    hold, ``PK`` and ``SK`` first."""
    columns = pattern.columns()
    return csv_response(filename, columns, (csv_line(pattern.plain(item), columns) for item in items))


def csv_line(item: dict[str, Any], columns: list[str]) -> list[object]:
    return [
        v if isinstance(v, str | int | float) and not isinstance(v, bool) else cell(v) for v in map(item.get, columns)
    ]


def _columns_of(pattern: AccessPattern, items: list[Mapping[str, Any]]) -> list[str]:
    present = {name for item in items for name in item}
    return [c for c in pattern.columns() if c in present] or ["PK", "SK"]


def shown_calls(log: CallLog) -> list[dict[str, Any]]:
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
    """A request DynamoDB refuses (a table or index not created yet) is a 503 saying so: the explorer reaches
    every table, including ones a deployment may lack. No answer at all is left to ``DynamoDBOutageMiddleware``."""

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
        return refused_filter(request, form, "dashboard/pattern.html", {**context, "message": first_error(form)})
    params: dict[str, str] = form.cleaned_data["params"]
    scope = "|".join([pattern.name, *(f"{k}={v}" for k, v in sorted(params.items()))])
    position = cursors.decode(form.cleaned_data["cursor"], salt=SALT, scope=scope)
    if form.wants_csv:
        # every page, the first read now, so an error is still a clean 4xx
        pages = every_page(lambda limit, after: paged(pattern.page(limit=limit, start_key=after, **params)))
        return pattern_csv(f"{pattern.name}.csv", pattern, (item for items in pages for item in items))
    start_key = position["k"] if position else None
    with recording(requests=True) as log:
        page = pattern.page(limit=form.cleaned_data["limit"], start_key=start_key, **params)
    if form.wants(PARTIQL):
        return JsonResponse(statement_of(log.calls).as_json())
    try:
        statement: Statement | None = statement_of(log.calls)
        unwritten = ""
    except InvalidInput as exc:
        statement, unwritten = None, str(exc)
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
        "statement": statement,
        "statement_json": json.dumps(statement.parameters, ensure_ascii=False) if statement else "",
        "box_url": _box_url(statement) if statement else None,
        "unwritten": unwritten,
    }
    return TemplateResponse(request, partial(request, "dashboard/pattern.html", "rows"), context)


@require_http_methods(["GET", "POST"])
@dynamodb_errors
def partiql_box(request: HtmxHttpRequest) -> HttpResponseBase:
    """GET: the box (``?statement=&parameters=`` filled in, as a pattern's page links it); POST: run it."""
    if request.method == "GET":
        initial = {name: request.GET.get(name, "") for name in ("statement", "parameters")}
        return TemplateResponse(request, "dashboard/partiql.html", {"form": PartiqlForm(initial=initial)})
    form = PartiqlForm(request.POST)
    context: dict[str, Any] = {"form": form}
    try:
        if not form.is_valid():
            raise InvalidInput(first_error(form))
        data = form.cleaned_data
        run = checked(data["statement"], data["parameters"])
        kwargs: dict[str, Any] = {"Statement": data["statement"], "ReturnConsumedCapacity": "TOTAL"}
        kwargs |= {"Limit": PARTIQL_PAGE} | ({"Parameters": data["parameters"]} if data["parameters"] else {})
        if data["next_token"]:
            kwargs["NextToken"] = data["next_token"]
        try:
            answer: Any = client_of(run.spec.model).execute_statement(**kwargs)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ValidationException":
                raise
            raise InvalidInput(f"DynamoDB refused the statement: {exc.response['Error'].get('Message')}") from exc
    except InvalidInput as exc:
        if request.htmx:
            return error(request, 400, str(exc))
        return TemplateResponse(request, "dashboard/partiql.html", {**context, "message": str(exc)}, status=400)
    items: list[dict[str, Any]] = answer.get("Items", [])
    columns = data["columns"] or _item_columns(items)
    context |= {
        "columns": columns,
        "columns_json": json.dumps(columns, ensure_ascii=False),
        "rows": [stored_row(item, columns) for item in items],
        "next_token": answer.get("NextToken"),
        "capacity": (answer.get("ConsumedCapacity") or {}).get("CapacityUnits"),
        "first_page": not data["next_token"],
        "items_count": len(items),
    }
    return TemplateResponse(request, partial(request, "dashboard/partiql.html", "rows"), context)


def _box_url(statement: Statement) -> str:
    query = urlencode({"statement": statement.text, "parameters": json.dumps(statement.parameters)})
    return f"{reverse('dashboard:partiql')}?{query}"


def _item_columns(items: list[dict[str, Any]]) -> list[str]:
    """``PK`` and ``SK`` first (when present), then every other attribute of the page's items, sorted."""
    present = {name for item in items for name in item}
    first = [n for n in ("PK", "SK") if n in present]
    return first + sorted(present - set(first))
