"""Which area of the top bar (``templates/base.html``) the page belongs to, for ``aria-current`` on its link.

A context processor: every page gets it without its view knowing, and it reads only the URL Django resolved (no
DynamoDB, no database). A page that is not listed belongs to no area (an order, a customer: reached by the jump
box or a link). A product's pages belong to the catalogue, the list of every product.
"""

from __future__ import annotations

from django.http import HttpRequest

# URL name -> (area, whether this is the area's own page: aria-current="page"; else "true", a page inside it)
AREAS: dict[str, tuple[str, bool]] = {
    "dashboard:home": ("home", True),
    "dashboard:pending": ("pending", True),
    "dashboard:orders": ("orders", True),
    "dashboard:orders-bulk": ("orders", False),
    "dashboard:stats-daily": ("numbers", True),
    "dashboard:stats-categories": ("numbers", False),
    "dashboard:stats-status": ("numbers", False),
    "dashboard:category": ("numbers", False),
    "dashboard:catalogue": ("catalogue", True),
    "dashboard:stock-import": ("catalogue", False),
    "dashboard:stock-import-apply": ("catalogue", False),
    "dashboard:product": ("catalogue", False),
    "dashboard:buyers": ("catalogue", False),
    "dashboard:product-edit": ("catalogue", False),
    "dashboard:stock-pick": ("catalogue", False),
    "dashboard:stock-edit": ("catalogue", False),
    "dashboard:stock-adjust": ("catalogue", False),
    "dashboard:activity": ("activity", True),
    "dashboard:sync": ("sync", True),
    "dashboard:patterns": ("explorer", True),
    "dashboard:pattern": ("explorer", False),
}


def current_area(request: HttpRequest) -> dict[str, str]:
    """``nav_area`` (the area's name) and ``nav_current`` (the ``aria-current`` value), or nothing."""
    match = request.resolver_match
    found = AREAS.get(match.view_name) if match is not None else None
    if found is None:
        return {}
    area, own_page = found
    return {"nav_area": area, "nav_current": "page" if own_page else "true"}
