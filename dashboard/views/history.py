"""``/history/<customer|product|warehouse>/<id>/``: an entity's edits newest first, from its partition's audit
entries (``shop.history``; see docs/editing.md, "History and activity")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.http import Http404, HttpResponseBase

from dashboard import selectors
from dashboard.forms.lists import ListForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import Listing, Paged
from dashboard.responses import csv_response
from shop import history
from shop.models import AuditEntry

HISTORY_CSV_HEADER = ["when", "user", "action", "attribute", "before", "after", "request_id", "warehouse_id", "reason"]
LATEST = 5  # the entity pages show this many of the latest changes


def latest(kind: str, entity_id: str) -> list[AuditEntry]:
    return history.entity_history(kind=kind, entity_id=entity_id, limit=LATEST).items


class History(Listing[ListForm, AuditEntry]):
    """One Query of the entity's partition a page; the CSV one row per changed attribute of each save."""

    template = "dashboard/history.html"
    salt = "history"
    template_rows = True  # a save's changes are a list in its row

    def __init__(self, request: HtmxHttpRequest, kind: str, entity_id: str) -> None:
        super().__init__(request)
        if kind not in history.HISTORY_KINDS:
            raise Http404(f"no history of {kind!r}")
        self.kind, self.entity_id, self.bare = kind, entity_id, ""

    def scope(self, form: ListForm) -> str:
        return f"{self.kind}|{self.entity_id}"

    def fetch(self, form: ListForm, *, limit: int, after: dict[str, Any] | None) -> Paged[AuditEntry]:
        return selectors.entity_history(kind=self.kind, entity_id=self.bare, limit=limit, after=after)

    def filename(self, form: ListForm) -> str:
        return f"{self.kind}-{self.bare}-history.csv"

    def frame(self, form: ListForm, *, first_page: bool) -> dict[str, Any]:
        """The entity is read (404 when it is missing) on the first page only."""
        read = selectors.entity_id if first_page else selectors.bare_entity_id
        self.bare = read(self.kind, self.entity_id)
        return {"kind": self.kind, "entity_id": self.bare}

    def every_record(self, form: ListForm) -> Iterator[AuditEntry]:
        self.bare = selectors.entity_id(self.kind, self.entity_id)
        return super().every_record(form)

    def csv(self, form: ListForm, records: Iterator[AuditEntry]) -> HttpResponseBase:
        rows = (
            [e.at, e.user, e.action, c.attribute, c.before, c.after, e.request_id, e.warehouse_id, e.reason]
            for e in records
            for c in e.changes or []
        )
        return csv_response(self.filename(form), HISTORY_CSV_HEADER, rows)


entity_history = History.view()
