"""``{% topbar %}``: the top bar's links and search forms, then the logout form with the user's name; nothing
for a visitor who is not logged in.

The links and search forms hold nothing of the request but whether the user is a superuser (one more link) and
the URLs, which depend only on the script prefix: they are rendered once per process (``_topbar_links.html``).
Rendered per request they were a fifth of a small page's template time.
"""

from __future__ import annotations

from functools import lru_cache

from django import template
from django.template.loader import render_to_string
from django.urls import get_script_prefix, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from dashboard.templatetags.rows import csrf_input

register = template.Library()


@lru_cache(maxsize=8)
def _links(superuser: bool, script_prefix: str) -> SafeString:
    return mark_safe(render_to_string("_topbar_links.html", {"superuser": superuser}))


@register.simple_tag(takes_context=True)
def topbar(context: template.Context) -> SafeString:
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return SafeString("")
    prefix = get_script_prefix()
    logout = format_html(
        '<form class="logout" method="post" action="{}">{}\n    <span>{}</span> <button type="submit">Log out</button>'
        "\n  </form>",
        _logout_url(prefix),
        csrf_input(context),
        user.get_username(),
    )
    return _links(bool(user.is_superuser), prefix) + logout


@lru_cache(maxsize=8)
def _logout_url(script_prefix: str) -> str:
    return reverse("logout")
