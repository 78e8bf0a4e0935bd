"""``/activity/``: every staff change newest first (the audit trail through the admin view's activity lists): order
changes, entity edits (``kind`` and ``entity_id`` say what they changed; ``order_id`` is empty), dead-letter
replays."""

from __future__ import annotations

from typing import Any

from adminview.reads import activity as staff_activity
from adminview.reads.activity import ActivityRow
from dashboard.forms.filters import ActivityForm
from dashboard.lists import Column, Listing, Paged

# the CSV's columns; the page's rows are drawn by its template (links that depend on what changed)
ACTIVITY_COLUMNS: tuple[Column[ActivityRow], ...] = (
    Column(csv="order_id", value=lambda r: r.order_id),
    Column(csv="at", value=lambda r: r.at.isoformat() if r.at else None),
    Column(csv="action", value=lambda r: r.action),
    Column(csv="user", value=lambda r: r.user),
    Column(csv="from_status", value=lambda r: r.from_status),
    Column(csv="to_status", value=lambda r: r.to_status),
    Column(csv="order_version", value=lambda r: r.order_version),
    Column(csv="product_id", value=lambda r: r.product_id),
    Column(csv="request_id", value=lambda r: r.request_id),
    Column(csv="detail", value=lambda r: r.detail),
    Column(csv="kind", value=lambda r: r.kind),
    Column(csv="entity_id", value=lambda r: r.entity_id),
)


class Activity(Listing[ActivityForm, ActivityRow]):
    """All staff changes (one Query per write shard) or one user's (one Query); ``day`` is a key condition."""

    template = "dashboard/activity.html"
    salt = "activity"
    form_class = ActivityForm
    columns = ACTIVITY_COLUMNS
    template_rows = True

    def refused(self, form: ActivityForm) -> dict[str, Any]:
        return {"form": form, "rows": [], "first_page": True, "refused": True}

    def _filters(self, form: ActivityForm) -> dict[str, str | None]:
        day = form.cleaned_data["day"]
        return {
            "user": form.cleaned_data["user"] or None,
            "day": day.isoformat() if day else None,
            "kind": form.cleaned_data["kind"] or None,
        }

    def scope(self, form: ActivityForm) -> str:
        return "|".join(value or "" for value in self._filters(form).values())

    def fetch(self, form: ActivityForm, *, limit: int, after: dict[str, Any] | None) -> Paged[ActivityRow]:
        return staff_activity.activity(limit=limit, after=after, **self._filters(form))

    def frame(self, form: ActivityForm, *, first_page: bool) -> dict[str, Any]:
        return {"form": form, "filtered": any(self._filters(form).values())}


activity = Activity.view()
