"""``/history/<customer|product|warehouse>/<id>/``: an entity's edits newest first (``shop.history``: one Query of its
partition's audit entries a page), "load more" with a signed cursor, ``?format=csv`` every row: one per changed
attribute of each save."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from django.http import Http404, HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from dashboard import cursors, selectors
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import CSV_PAGE, csv_url, list_form, next_url, partial
from dashboard.responses import csv_response, domain_errors
from shop import history
from shop.models import AuditEntry

HISTORY_CSV_HEADER = ["when", "user", "action", "attribute", "before", "after", "request_id", "warehouse_id", "reason"]
LATEST = 5  # the entity pages show this many of the latest changes


def csv_rows(entries: Iterator[AuditEntry]) -> Iterator[list[Any]]:
    for entry in entries:
        for change in entry.changes or []:
            yield [
                entry.at,
                entry.user,
                entry.action,
                change.attribute,
                change.before,
                change.after,
                entry.request_id,
                entry.warehouse_id,
                entry.reason,
            ]


def latest(kind: str, entity_id: str) -> list[AuditEntry]:
    """The few latest changes an entity page shows (one Query)."""
    return history.entity_history(kind=kind, entity_id=entity_id, limit=LATEST).items


@require_GET
@domain_errors
def entity_history(request: HtmxHttpRequest, kind: str, entity_id: str) -> HttpResponseBase:
    if kind not in history.HISTORY_KINDS:
        raise Http404(f"no history of {kind!r}")
    form = list_form(request)
    scope = f"{kind}|{entity_id}"
    start_key = cursors.decode(form.cleaned_data["cursor"], salt="history", scope=scope)
    if form.wants_csv:
        bare = selectors.entity_id(kind, entity_id)
        found = selectors.every_history_entry(kind=kind, entity_id=bare, page_size=CSV_PAGE)
        first = list(itertools.islice(found, 1))  # the first page now: its errors are still a clean 4xx
        return csv_response(f"{kind}-{bare}-history.csv", HISTORY_CSV_HEADER, csv_rows(itertools.chain(first, found)))
    bare = selectors.entity_id(kind, entity_id) if start_key is None else selectors.bare_entity_id(kind, entity_id)
    page = history.entity_history(kind=kind, entity_id=bare, limit=form.cleaned_data["limit"], start_key=start_key)
    context = {
        "kind": kind,
        "entity_id": bare,
        "entries": page.items,
        "next_url": next_url(request, cursors.encode(page.next_key, salt="history", scope=scope)),
        "csv_url": csv_url(request),
        "first_page": start_key is None,
    }
    return TemplateResponse(request, partial(request, "dashboard/history.html", "rows"), context)
