"""Stock in bulk: upload a CSV, see its dry run, apply it (see docs/editing.md, "Stock in bulk"). The dry run's
rows are signed into the "Apply" form, so what is applied is exactly what was shown."""

from __future__ import annotations

import itertools
from typing import Any

from django import forms
from django.conf import settings
from django.core import signing
from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard import selectors
from dashboard.actors import actor_of
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import CSV_PAGE, validated
from dashboard.permissions import can_edit_catalogue, needs_group
from dashboard.responses import csv_response, domain_errors
from shop import access_patterns, keys, stock_import
from shop.errors import InvalidInput
from shop.stock_import import MAX_ROWS, PlannedRow, RowOutcome

MAX_FILE_BYTES = 2 * 1024 * 1024
CHUNK = 250  # rows applied per htmx request
PLAN_SALT = "dashboard.stock-import"
PLAN_MAX_AGE_S = 3600
TEMPLATE = "dashboard/stock_import.html"
STOCK_CSV_HEADER = ["product_id", "warehouse_id", "quantity"]


class StockFileForm(forms.Form):
    file = forms.FileField(label="CSV file", help_text=f"product_id,warehouse_id,quantity; at most {MAX_ROWS:,} rows")

    def clean_file(self) -> bytes:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_FILE_BYTES:
            raise forms.ValidationError(f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
        data: bytes = upload.read()
        return data


class ApplyForm(forms.Form):
    """The signed plan, and for a chunked apply where it got to and the counts so far (shown only)."""

    plan = forms.CharField(max_length=4 * 1024 * 1024)
    offset = forms.IntegerField(min_value=0, max_value=MAX_ROWS, required=False)
    done = forms.IntegerField(min_value=0, max_value=MAX_ROWS, required=False)
    refused = forms.IntegerField(min_value=0, max_value=MAX_ROWS, required=False)
    already = forms.IntegerField(min_value=0, max_value=MAX_ROWS, required=False)
    failed = forms.IntegerField(min_value=0, max_value=MAX_ROWS, required=False)


def sign_plan(rows: list[PlannedRow], username: str) -> str:
    payload = {"u": username, "r": [[r.line, r.product_id, r.warehouse_id, r.before, r.after] for r in rows]}
    return signing.dumps(payload, salt=PLAN_SALT, compress=True)


def read_plan(token: str, username: str) -> list[PlannedRow]:
    """The rows a dry run signed for this user; InvalidInput (400) when altered, expired or another user's."""
    try:
        payload = signing.loads(token, salt=PLAN_SALT, max_age=PLAN_MAX_AGE_S)
    except signing.SignatureExpired as exc:
        raise InvalidInput("this dry run is more than an hour old; upload the file again") from exc
    except (signing.BadSignature, ValueError) as exc:
        raise InvalidInput("the dry run's rows were altered; upload the file again") from exc
    if not isinstance(payload, dict) or payload.get("u") != username or not isinstance(payload.get("r"), list):
        raise InvalidInput("this dry run belongs to another user; upload the file again")
    try:
        return [
            PlannedRow(int(n), str(pid), str(wid), before, int(after)) for n, pid, wid, before, after in payload["r"]
        ]
    except (TypeError, ValueError) as exc:
        raise InvalidInput("the dry run's rows are malformed; upload the file again") from exc


def _allowed(request: HtmxHttpRequest) -> HttpResponseBase | None:
    return None if can_edit_catalogue(request.user) else needs_group(request, settings.CATALOGUE_GROUP, "stock")


@require_http_methods(["GET", "POST"])
@domain_errors
def stock_import_page(request: HtmxHttpRequest) -> HttpResponseBase:
    if (refused := _allowed(request)) is not None:
        return refused
    context: dict[str, Any] = {"max_rows": MAX_ROWS, "max_mb": MAX_FILE_BYTES // (1024 * 1024)}
    if request.method != "POST":
        return TemplateResponse(request, TEMPLATE, context | {"form": StockFileForm()})
    form = StockFileForm(request.POST, request.FILES)
    if not form.is_valid():
        return TemplateResponse(request, TEMPLATE, context | {"form": form}, status=400)
    try:
        plan = stock_import.dry_run(form.cleaned_data["file"])
    except stock_import.FileRefused as exc:
        form.add_error("file", str(exc))
        return TemplateResponse(request, TEMPLATE, context | {"form": form}, status=400)
    changed = plan.changed
    context |= {
        "form": StockFileForm(),
        "plan": plan,
        "changed": changed,
        "unchanged": len(plan.rows) - len(changed),
        "total_rows": len(plan.rows) + len(plan.errors),
        "token": sign_plan(changed, request.user.get_username()) if changed else None,
    }
    return TemplateResponse(request, TEMPLATE, context)


@require_POST
@domain_errors
def stock_import_apply(request: HtmxHttpRequest) -> HttpResponseBase:
    if (refused := _allowed(request)) is not None:
        return refused
    form = validated(ApplyForm(request.POST))
    rows = read_plan(form.cleaned_data["plan"], request.user.get_username())
    actor = actor_of(request)
    if not request.htmx:
        outcomes = stock_import.apply(rows, actor=actor)
        context = {"outcomes": outcomes, "applied_all": True, "total": len(rows), **_counts(outcomes, {})}
        return TemplateResponse(request, TEMPLATE, context)
    start = form.cleaned_data.get("offset") or 0
    chunk = rows[start : start + CHUNK]
    outcomes = stock_import.apply(chunk, actor=actor)
    end = start + len(chunk)
    context = {
        "outcomes": outcomes,
        "first_chunk": start == 0,
        "total": len(rows),
        "applied": end,
        "next_offset": end if end < len(rows) else None,
        "plan_token": form.cleaned_data["plan"],
        **_counts(outcomes, form.cleaned_data),
    }
    return TemplateResponse(request, TEMPLATE + "#chunk", context)


def _counts(outcomes: list[RowOutcome], before: dict[str, Any]) -> dict[str, int]:
    done = sum(o.done for o in outcomes) + (before.get("done") or 0)
    refused = sum(o.code == 409 for o in outcomes) + (before.get("refused") or 0)
    already = sum(o.already for o in outcomes) + (before.get("already") or 0)
    failed = sum(not o.done and o.code != 409 for o in outcomes) + (before.get("failed") or 0)
    return {"done": done, "refused": refused, "already": already, "failed": failed}


@require_GET
@domain_errors
def warehouse_stock_csv(request: HtmxHttpRequest, warehouse_id: str) -> HttpResponseBase:
    """Pattern 14 (GSI2 w#<wid>, p#...), every row, as ``product_id,warehouse_id,quantity``: the import's format."""
    wid = keys.bare(warehouse_id, keys.WAREHOUSE)
    selectors.existing(access_patterns.warehouse_by_id(warehouse_id=wid), "warehouse", wid)
    found = selectors.warehouse_stock(warehouse_id=wid, page_size=CSV_PAGE)
    first = list(itertools.islice(found, 1))  # the first page now: its calls are in the cost headers
    rows = ([row.product_id, row.warehouse_id, row.quantity] for row in itertools.chain(first, found))
    return csv_response(f"warehouse-{wid}-stock.csv", STOCK_CSV_HEADER, rows)
