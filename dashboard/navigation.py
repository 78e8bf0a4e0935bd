"""Which area of the top bar (``templates/base.html``) the page belongs to, for ``aria-current`` on its link, and
which areas form the operations menu, whose pages only operators open (``dashboard.permissions.can_operate``,
enforced by ``dashboard.middleware.OperatorsOnlyMiddleware`` from this same table).

A context processor: every page gets it without its view knowing, and it reads only the URL Django resolved (no
DynamoDB, no database). A page that is not listed belongs to no area (an order: reached by the jump box or a
link). A product's and a warehouse's pages belong to the catalogue, the list of every product; an order's
consistency with the admin view (and its repair) belongs to the sync.
"""

from __future__ import annotations

from django.http import HttpRequest

# URL name -> (area, whether this is the area's own page: aria-current="page"; else "true", a page inside it)
AREAS: dict[str, tuple[str, bool]] = {
    "dashboard:home": ("home", True),
    "dashboard:pending": ("orders", True),  # the pending list: the orders area's first tab
    "dashboard:orders": ("orders", True),
    "dashboard:orders-bulk": ("orders", False),
    "dashboard:slips": ("orders", False),  # the pending list's packing slips
    "dashboard:stats-daily": ("numbers", True),
    "dashboard:stats-categories": ("numbers", False),
    "dashboard:stats-status": ("numbers", False),
    "dashboard:stats-refunds": ("numbers", False),
    "dashboard:category": ("numbers", False),
    "dashboard:customers": ("customers", True),
    "dashboard:customer": ("customers", False),
    "dashboard:invoices": ("customers", False),
    "dashboard:catalogue": ("catalogue", True),
    "dashboard:warehouses": ("catalogue", False),
    "dashboard:warehouse": ("catalogue", False),
    "dashboard:stock-import": ("catalogue", False),
    "dashboard:stock-import-apply": ("catalogue", False),
    "dashboard:product": ("catalogue", False),
    "dashboard:buyers": ("catalogue", False),
    "dashboard:product-edit": ("catalogue", False),
    "dashboard:stock-pick": ("catalogue", False),
    "dashboard:stock-edit": ("catalogue", False),
    "dashboard:stock-adjust": ("catalogue", False),
    "dashboard:returns": ("returns", True),
    "dashboard:return": ("returns", False),
    "dashboard:return-approve": ("returns", False),
    "dashboard:return-reject": ("returns", False),
    "dashboard:return-receive": ("returns", False),
    "dashboard:return-refund": ("returns", False),
    "dashboard:activity": ("activity", True),
    "dashboard:search": ("search", True),
    "dashboard:sync": ("sync", True),
    "dashboard:sync-replay": ("sync", False),
    "dashboard:order-consistency": ("sync", False),
    "dashboard:order-consistency-repair": ("sync", False),
    "dashboard:patterns": ("explorer", True),
    "dashboard:pattern": ("explorer", False),
    "dashboard:partiql": ("explorer", False),
}
# The operations menu: developers' and operators' tools, each page of these areas for operators only.
OPERATIONS = frozenset({"sync", "explorer"})


def area_of(request: HttpRequest) -> tuple[str, bool] | None:
    """The page's (area, whether it is the area's own page), or None for a page of no area."""
    match = request.resolver_match
    return AREAS.get(match.view_name) if match is not None else None


def in_operations(request: HttpRequest) -> bool:
    found = area_of(request)
    return found is not None and found[0] in OPERATIONS


def current_area(request: HttpRequest) -> dict[str, str | bool]:
    """``nav_area`` (the area's name), ``nav_current`` (the ``aria-current`` value) and ``nav_operations`` (the
    area is in the operations menu), or nothing."""
    found = area_of(request)
    if found is None:
        return {}
    area, own_page = found
    return {"nav_area": area, "nav_current": "page" if own_page else "true", "nav_operations": area in OPERATIONS}
