"""``/activity/``: every staff change newest first, through the admin view's activity lists (see docs/editing.md,
"History and activity", and docs/admin-view.md, "Staff activity")."""

from __future__ import annotations

from typing import Any

from adminview.reads import activity as staff_activity
from adminview.reads.activity import ActivityRow
from dashboard.forms.filters import ActivityForm
from dashboard.lists import Listing, Paged, csv_fields

# the CSV's columns; the page's rows are drawn by its template (links that depend on what changed)
ACTIVITY_COLUMNS = (
    *csv_fields("order_id", "at", "action", "user", "from_status", "to_status", "order_version", "product_id"),
    *csv_fields("request_id", "detail", "kind", "entity_id"),
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
