"""Request-wide middleware of the dashboard, in MIDDLEWARE's order.

- ``DynamoDBCostMiddleware`` (first, so it records every call): the cost headers on every response and the
  operators' footer panel (see docs/staff-work.md, "Footer panel after htmx swaps"). A streamed CSV carries only
  the calls made before its first byte: later ones come after the headers.
- django-htmx's ``HtmxMiddleware`` next, so ``request.htmx`` is there for the others.
- ``vary_on_htmx``: every page may answer htmx with a fragment, so a browser's cache never shows one after Back.
- ``DynamoDBOutageMiddleware``: the request's deadline, and DynamoDB not answering in a view or its template as a
  503 (see docs/production.md, "When DynamoDB does not answer"); other errors stay 500.
- ``ContentSecurityPolicyMiddleware``: Django 5.2 has no CSP.
- ``LongUrlMiddleware`` (after the security headers, before any other work): the server in front lets longer
  request lines through (``gunicorn.conf.py``).
- ``StaffOnlyMiddleware`` (after LoginRequiredMiddleware): an htmx request bounced to the login page gets
  ``HX-Redirect``, so the whole page navigates.
- ``OperatorsOnlyMiddleware``: 403 on the operations menu's pages for anyone but operators, whatever the view says.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render, resolve_url
from django.template.loader import render_to_string
from django.template.response import SimpleTemplateResponse
from django.utils.cache import patch_vary_headers
from django_htmx.http import HttpResponseClientRedirect

from dashboard import navigation
from dashboard.htmx import HtmxHttpRequest
from dashboard.permissions import can_operate, needs_operator
from dashboard.responses import NO_ANSWER, NO_ANSWER_TO_CHANGE, no_answer
from dynamo import deadline
from dynamo.instrumentation import CallLog, recording
from dynamo.models import patience_in_force
from dynamo.no_answer import did_not_answer

Handler = Callable[[HttpRequest], HttpResponseBase]
log = logging.getLogger(__name__)


class Middleware:
    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HtmxHttpRequest) -> HttpResponseBase:
        return self.get_response(request)


def cost_headers(response: HttpResponseBase, log: CallLog) -> None:
    calls = log.count
    response["X-DynamoDB-Calls"] = str(calls)
    response["X-DynamoDB-RCU"] = f"{log.read_units:g}"
    entry = f'dynamodb;dur={log.ms:.1f};desc="{calls} call{"" if calls == 1 else "s"}"'
    existing = response.get("Server-Timing")
    response["Server-Timing"] = f"{existing}, {entry}" if existing else entry


def append_cost_panel(request: HtmxHttpRequest, response: HttpResponseBase, log: CallLog) -> None:
    """htmx fragments carry the operators' footer panel out of band (``innerHTML``: an open panel stays open)."""
    if not request.htmx or not isinstance(response, HttpResponse):
        return
    if response.status_code == 204 or "HX-Redirect" in response or "HX-Location" in response:
        return
    if not response.get("Content-Type", "").startswith("text/html"):
        return
    if isinstance(response, SimpleTemplateResponse) and not response.is_rendered:
        response.render()
    user = getattr(request, "user", None)
    if user is None or not can_operate(user):
        return
    panel = render_to_string("_dynamodb_cost.html#oob", {"log": log, "oob_path": request.path, "calls_shown": True})
    response.content = response.content + panel.encode(response.charset)
    if response.has_header("Content-Length"):  # set by CommonMiddleware before we appended
        response["Content-Length"] = str(len(response.content))


class DynamoDBCostMiddleware(Middleware):
    def __call__(self, request: HtmxHttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        with recording() as log:
            request.dynamodb_log = log  # type: ignore[attr-defined]
            response = self.get_response(request)
            append_cost_panel(request, response, log)
        cost_headers(response, log)
        response["Server-Timing"] += f", app;dur={(time.perf_counter() - started) * 1000:.1f}"
        return response


class DynamoDBOutageMiddleware(Middleware):
    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        with deadline.within(patience_in_force().deadline_seconds):
            return self.get_response(request)

    def process_exception(self, request: HtmxHttpRequest, exception: Exception) -> HttpResponseBase | None:
        if not did_not_answer(exception):
            return None
        log.warning("DynamoDB did not answer %s %s: %r", request.method, request.path, exception)
        changing = request.method not in ("GET", "HEAD", "OPTIONS")
        return no_answer(request, NO_ANSWER_TO_CHANGE if changing else NO_ANSWER)


def vary_on_htmx(get_response: Handler) -> Handler:
    def middleware(request: HttpRequest) -> HttpResponseBase:
        response = get_response(request)
        patch_vary_headers(response, ("HX-Request",))
        return response

    return middleware


class LongUrlMiddleware(Middleware):
    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if len(request.get_full_path()) > settings.MAX_URL_LENGTH:
            context = {"limit": settings.MAX_URL_LENGTH, "length": len(request.get_full_path())}
            return render(request, "414.html", context, status=414)
        return self.get_response(request)


class ContentSecurityPolicyMiddleware(Middleware):
    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        policy = getattr(settings, "CONTENT_SECURITY_POLICY", "")
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        response.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
        return response


class StaffOnlyMiddleware(Middleware):
    def __call__(self, request: HtmxHttpRequest) -> HttpResponseBase:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not user.is_staff and not self._open(request):
            return render(request, "403.html", {"message": "This back office is for staff accounts only."}, status=403)
        response = self.get_response(request)
        if response.status_code == 302 and request.htmx and self._to_login(response):
            # back to the page the user was on, not to the fragment htmx asked for
            return HttpResponseClientRedirect(
                redirect_to_login(request.htmx.current_url_abs_path or request.get_full_path())["Location"]
            )
        return response

    def _open(self, request: HttpRequest) -> bool:
        login = resolve_url(settings.LOGIN_URL)
        logout = resolve_url("logout")
        static = "/" + settings.STATIC_URL.lstrip("/")
        return request.path in (login, logout) or request.path.startswith(static)

    @staticmethod
    def _to_login(response: HttpResponseBase) -> bool:
        return response.get("Location", "").startswith(resolve_url(settings.LOGIN_URL))


class OperatorsOnlyMiddleware(Middleware):
    """Checked once the URL is resolved, so the page's area decides; a login redirect comes first."""

    def process_view(
        self, request: HtmxHttpRequest, view: Callable[..., HttpResponseBase], args: object, kwargs: object
    ) -> HttpResponseBase | None:
        if navigation.in_operations(request) and not can_operate(request.user):
            return needs_operator(request)
        return None
