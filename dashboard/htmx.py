"""The request every dashboard view and middleware gets: Django's ``HttpRequest`` with django-htmx's ``htmx``
(``HtmxMiddleware``, second in ``MIDDLEWARE``, sets it on every request), typed as django-htmx's docs show."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
