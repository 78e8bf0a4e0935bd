"""``{% topbar_links user.is_superuser %}``: the top bar's links and search forms, rendered once per process.

They hold nothing of the request but whether the user is a superuser (one more link) and the URLs, which depend
only on the script prefix; rendered per request they were a fifth of a small page's template time.
"""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@lru_cache(maxsize=8)
def _links(superuser: bool, script_prefix: str) -> SafeString:
    return mark_safe(render_to_string("_topbar_links.html", {"superuser": superuser}))


@register.simple_tag
def topbar_links(superuser: bool) -> SafeString:
    return _links(bool(superuser), get_script_prefix())
