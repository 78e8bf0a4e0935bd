"""``/activity/``: every staff change newest first (the audit trail through the admin view's activity lists): order
changes, entity edits (``kind`` and ``entity_id`` say what they changed; ``order_id`` is empty), dead-letter
replays."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from adminview.reads import activity as staff_activity
from dashboard import cursors
from dashboard.forms import ActivityForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.responses import csv_response, domain_errors
from dashboard.views.common import csv_url, every_row, next_url, partial, refused_filter

ACTIVITY_CSV_HEADER = [
    "order_id",
    "at",
    "action",
    "user",
    "from_status",
    "to_status",
    "order_version",
    "product_id",
    "request_id",
    "detail",
    "kind",
    "entity_id",
]


def activity_csv_row(row: Any) -> list[Any]:
    return [
        row.order_id,
        row.at.isoformat() if row.at else None,
        row.action,
        row.user,
        row.from_status,
        row.to_status,
        row.order_version,
        row.product_id,
        row.request_id,
        row.detail,
        row.kind,
        row.entity_id,
    ]


@require_GET
@domain_errors
def activity(request: HtmxHttpRequest) -> HttpResponseBase:
    """All staff changes (one Query per write shard) or one user's (one Query); ``day`` is a key condition."""
    form = ActivityForm(request.GET)
    if not form.is_valid():
        context = {"form": form, "rows": [], "first_page": True, "refused": True}
        return refused_filter(request, form, "dashboard/activity.html", context)
    user = form.cleaned_data["user"] or None
    day = form.cleaned_data["day"].isoformat() if form.cleaned_data["day"] else None
    kind = form.cleaned_data["kind"] or None
    scope = f"{user or ''}|{day or ''}|{kind or ''}"
    after = cursors.decode(form.cleaned_data["cursor"], salt="activity", scope=scope)
    if form.wants_csv:
        rows = every_row(staff_activity.activity, user=user, day=day, kind=kind)
        return csv_response("activity.csv", ACTIVITY_CSV_HEADER, map(activity_csv_row, rows))
    page = staff_activity.activity(limit=form.cleaned_data["limit"], after=after, user=user, day=day, kind=kind)
    context = {
        "form": form,
        "rows": page.rows,
        "filtered": bool(user or day or kind),
        "next_url": next_url(request, cursors.encode(page.next, salt="activity", scope=scope)),
        "csv_url": csv_url(request),
        "first_page": after is None,
    }
    return TemplateResponse(request, partial(request, "dashboard/activity.html", "rows"), context)
