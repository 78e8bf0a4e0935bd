"""``{% view_freshness "shop" "returns" %}``: the "Up to date as of 12:03:07 (shop and returns)" line on every page
that reads the admin view, naming the sources the page's figures come from (every source when none is named)."""

from __future__ import annotations

from typing import Any

from django import template

from dashboard import freshness

register = template.Library()


@register.inclusion_tag("dashboard/_freshness.html")
def view_freshness(*names: str) -> dict[str, Any]:
    return {"statements": freshness.statements(freshness.current(), names)}
