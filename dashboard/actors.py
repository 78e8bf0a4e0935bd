"""Who is acting: the logged-in staff member and an id for this request, as the domain's ``Actor``."""

from __future__ import annotations

import re
import uuid

from django.http import HttpRequest

from shop.audit import Actor

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._\-]{1,64}$")


def request_id(request: HttpRequest) -> str:
    """The proxy's sane ``X-Request-ID`` (so logs and the trail agree), else a new id; one per request."""
    cached = getattr(request, "_audit_request_id", None)
    if isinstance(cached, str):
        return cached
    sent = request.headers.get("X-Request-ID", "")
    value = sent if _REQUEST_ID.match(sent) else uuid.uuid4().hex
    request._audit_request_id = value  # type: ignore[attr-defined]
    return value


def actor_of(request: HttpRequest) -> Actor:
    return Actor(username=request.user.get_username(), request_id=request_id(request))
