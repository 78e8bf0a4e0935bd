"""``{% view_freshness %}``: the "as of 12:03:07, 0.4 s behind" line on every page that reads the admin view."""

from __future__ import annotations

from typing import Any

from django import template

from dashboard import freshness

register = template.Library()


@register.inclusion_tag("dashboard/_freshness.html")
def view_freshness() -> dict[str, Any]:
    return {"freshness": freshness.current()}
