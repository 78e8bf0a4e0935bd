"""The sync's state for operators, in a fixed number of calls whatever the tables hold, and the superusers' replay
of dead letters through the stream's apply (see docs/operations.md, "2. Look" and "4. Fix the cause")."""

from __future__ import annotations

import re

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_POST

from adminview.sync import sync_status, sync_store
from adminview.sync.replay import replay
from dashboard.actors import actor_of
from dashboard.htmx import HtmxHttpRequest
from dashboard.permissions import is_superuser
from dashboard.responses import domain_errors, error

DEAD_LETTERS_SHOWN = 100
REPLAY_ALL_AT_MOST = 100  # per click: a request's DynamoDB calls stay bounded
KEY_FIELD, ALL_FIELD = "key", "all"
_KEY = re.compile(r"^[0-9]{48}#[A-Za-z0-9:_\-.]{0,200}$")


@require_GET
@domain_errors
def sync_page(request: HtmxHttpRequest) -> HttpResponse:
    status = sync_status.sync_status()
    letters = list(sync_store.dead_letters(limit=DEAD_LETTERS_SHOWN))
    context = {
        "status": status,
        "letters": letters,
        "more_letters": max(0, status.dead_letters - len(letters)),
        "can_replay": is_superuser(request.user),
        "key_field": KEY_FIELD,
        "all_field": ALL_FIELD,
    }
    return TemplateResponse(request, "dashboard/sync.html", context)


@require_POST
@domain_errors
def sync_replay(request: HtmxHttpRequest) -> HttpResponse:
    """Replay one dead letter (``key``) or, with ``all``, up to ``REPLAY_ALL_AT_MOST`` of them, oldest first."""
    if not is_superuser(request.user):
        return error(request, 403, "Only superusers may replay dead letters.")
    if request.POST.get(ALL_FIELD):
        letters = list(sync_store.dead_letters(limit=REPLAY_ALL_AT_MOST))
    else:
        key = request.POST.get(KEY_FIELD, "")
        if not _KEY.match(key):
            return error(request, 400, "Say which dead letter to replay (its key), or replay all.")
        letter = sync_store.dead_letter(key)
        if letter is None:
            return error(request, 404, "No such dead letter (already replayed?).")
        letters = [letter]
    actor = actor_of(request)
    results = [replay(letter, actor) for letter in letters]
    for result in results:
        (messages.success if result.ok else messages.error)(request, result.line)
    if not results:
        messages.info(request, "No dead letters to replay.")
    return redirect("dashboard:sync")
