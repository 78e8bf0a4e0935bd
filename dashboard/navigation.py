"""Which area of the top bar the page belongs to (for ``aria-current``), and which areas form the operations
menu, whose pages only operators open (``OperatorsOnlyMiddleware`` enforces it from this same table). A page not
listed belongs to no area (an order)."""

from __future__ import annotations

from django.http import HttpRequest

# area -> (its own pages: aria-current="page"; the pages inside it: "true"), by their URL names in "dashboard:"
PAGES: dict[str, tuple[str, str]] = {
    "home": ("home", ""),
    # the pending list is the orders area's first tab; the packing slips are the pending list's
    "orders": ("pending orders", "orders-bulk slips"),
    "numbers": ("stats-daily", "stats-categories stats-status stats-refunds category"),
    "customers": ("customers", "customer invoices"),
    "catalogue": (
        "catalogue",
        "warehouses warehouse stock-import stock-import-apply product buyers product-edit stock-pick stock-edit "
        "stock-adjust",
    ),
    "returns": ("returns", "return return-approve return-reject return-receive return-refund"),
    "activity": ("activity", ""),
    "search": ("search", ""),
    "sync": ("sync", "sync-replay order-consistency order-consistency-repair"),
    "explorer": ("patterns", "pattern partiql"),
}
# URL name -> (area, whether this is the area's own page)
AREAS: dict[str, tuple[str, bool]] = {
    f"dashboard:{name}": (area, own)
    for area, (own_pages, inside) in PAGES.items()
    for own, names in ((True, own_pages), (False, inside))
    for name in names.split()
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
    """``nav_area``, ``nav_current`` (the ``aria-current`` value) and ``nav_operations``, or nothing."""
    found = area_of(request)
    if found is None:
        return {}
    area, own_page = found
    return {"nav_area": area, "nav_current": "page" if own_page else "true", "nav_operations": area in OPERATIONS}
