"""Staff notes on an order, a customer or a return (see docs/staff-work.md, "Notes and the timeline"). Only the
author edits a note, a rule the service holds with a condition, so a forged form gets 403."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.http import HttpResponseBase
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from dashboard.actors import actor_of
from dashboard.forms.notes import NoteForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.responses import domain_errors
from dashboard.selectors import existing
from returns import access_patterns as return_patterns
from returns import keys as return_keys
from returns import notes as return_notes
from shop import access_patterns, keys, notes
from shop.notes import Thread, Version
from shop.order_reads import order_collection

FRAGMENT, PAGE = "dashboard/_notes.html", "dashboard/notes.html"
KINDS = ("order", "customer", "return")


@dataclass(frozen=True)
class Subject:
    kind: str
    entity_id: str

    @classmethod
    def of(cls, kind: str, value: str) -> Subject:
        """The subject a URL names; InvalidId (400) for a malformed id."""
        if kind == "order":
            return cls(kind, keys.bare(value, keys.ORDER))
        if kind == "customer":
            return cls(kind, keys.bare(value, keys.CUSTOMER))
        return cls(kind, return_keys.return_id(value))

    @property
    def page_url(self) -> str:
        return reverse(f"dashboard:{self.kind}", args=[self.entity_id])

    @property
    def add_url(self) -> str:
        return reverse(f"dashboard:{self.kind}-notes", args=[self.entity_id])

    def edit_url(self, note_id: str) -> str:
        return reverse(f"dashboard:{self.kind}-note-edit", args=[self.entity_id, note_id])


@dataclass(frozen=True)
class Shown:
    thread: Thread[Version]
    edit_url: str | None
    form: NoteForm | None


def notes_context(
    request: HtmxHttpRequest,
    subject: Subject,
    versions: Sequence[Version],
    *,
    form: NoteForm | None = None,
    editing: str | None = None,
    edit_form: NoteForm | None = None,
) -> dict[str, Any]:
    """The notes fragment: every note newest first, the add form, an edit form on each of the reader's own."""
    me = request.user.get_username()
    shown = []
    for thread in notes.threads(versions):
        nid = thread.note_id
        mine = thread.first.user == me and bool(nid)
        note_form = None
        if mine:
            fresh = NoteForm(initial={"text": thread.latest.text}, auto_id=f"note-{nid}-%s")
            note_form = edit_form if nid == editing and edit_form is not None else fresh
        shown.append(Shown(thread, subject.edit_url(nid) if mine else None, note_form))
    return {"notes_subject": subject, "notes": shown, "note_form": form or NoteForm(auto_id="new-note-%s")}


def versions_of(subject: Subject) -> Sequence[Version]:
    """Every version of the subject's notes; NotFound (404) for no such order, customer or return."""
    if subject.kind == "order":
        return order_collection(subject.entity_id).notes
    if subject.kind == "customer":
        existing(access_patterns.customer_by_id(customer_id=subject.entity_id), "customer", subject.entity_id)
        return notes.notes_of(about="customer", entity_id=subject.entity_id)
    item, found = return_patterns.return_and_notes(return_id=subject.entity_id, consistent=True)
    existing(item, "return", subject.entity_id)
    return found


def _answer(request: HtmxHttpRequest, subject: Subject, status: int = 200, **forms: Any) -> HttpResponseBase:
    context = notes_context(request, subject, versions_of(subject), **forms)
    return TemplateResponse(request, FRAGMENT if request.htmx else PAGE, context, status=status)


@require_POST
@domain_errors
def note_write(request: HtmxHttpRequest, kind: str, entity_id: str, note_id: str | None = None) -> HttpResponseBase:
    subject = Subject.of(kind, entity_id)
    if note_id is not None:
        keys.note_key(note_id)  # a malformed id is 400 before anything is read
    form = NoteForm(request.POST, auto_id=f"note-{note_id}-%s" if note_id else "new-note-%s")
    if not form.is_valid() and note_id is None:
        return _answer(request, subject, 400, form=form)
    if not form.is_valid() and note_id is not None:
        notes.original_of(versions_of(subject), note_id, actor_of(request))  # 404 or 403 before 400
        return _answer(request, subject, 400, editing=note_id, edit_form=form)
    text, actor = form.cleaned_data["text"], actor_of(request)
    if kind == "return" and note_id:
        return_notes.note_edit(return_id=subject.entity_id, note_id=note_id, text=text, actor=actor)
    elif kind == "return":
        return_notes.note_add(return_id=subject.entity_id, text=text, actor=actor)
    elif note_id:
        notes.note_edit(about=kind, entity_id=subject.entity_id, note_id=note_id, text=text, actor=actor)
    else:
        notes.note_add(about=kind, entity_id=subject.entity_id, text=text, actor=actor)
    return _answer(request, subject) if request.htmx else redirect(subject.page_url + "#notes")
