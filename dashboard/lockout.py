"""Login throttling hooks for django-axes: which client address a failure counts against, and the page a
locked-out login gets (429, when to try again, ``Retry-After``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from axes.helpers import get_client_username, get_cool_off
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone


def client_address(request: HttpRequest) -> str | None:
    """The peer's address; behind a proxy (``DJANGO_BEHIND_PROXY``), the last X-Forwarded-For entry, the one our
    proxy appended. Earlier entries come from the client and could be forged to dodge the throttle."""
    if getattr(settings, "BEHIND_PROXY", False):
        forwarded = [part.strip() for part in str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",")]
        if forwarded and forwarded[-1]:
            return forwarded[-1]
    address = request.META.get("REMOTE_ADDR")
    return str(address) if address else None


def _minutes(delta: timedelta) -> str:
    minutes = max(1, round(delta.total_seconds() / 60))
    return f"{minutes} minute{'' if minutes == 1 else 's'}"


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """Every attempt while locked out restarts the cool-off, so the way out is to wait that long from now."""
    cool_off = get_cool_off(request) or timedelta(0)
    until = timezone.now() + cool_off
    context = {
        "username": get_client_username(request, credentials) or "",
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "cool_off": _minutes(cool_off),
        "until": until,
    }
    response = render(request, "registration/locked_out.html", context, status=429)
    response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response
