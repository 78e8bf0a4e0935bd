"""``{% asset_url "dashboard/dashboard.css" %}`` and ``{% htmx_script_tag %}``: Django's ``{% static %}`` and
django-htmx's ``{% htmx_script %}``, computed once per process.

Every page's head has both, and neither can change while the process runs (the static files and their
manifest are collected before it starts); computed per request they cost a measurable share of a small page.
"""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.templatetags.static import static
from django.utils.safestring import SafeString
from django_htmx.jinja import htmx_script

register = template.Library()


@register.simple_tag
@lru_cache(maxsize=32)
def asset_url(path: str) -> str:
    return static(path)


@register.simple_tag
@lru_cache(maxsize=1)
def htmx_script_tag() -> SafeString:
    return htmx_script()
