"""The catalogue: every product by id, from the admin view's catalogue index (GSI8), never a Scan of the shop table.

The shop table has no index of all products (AWS's model reads a product by id only), so the sync keeps a
catalogue row per product (``projection.catalogue_item``) under ``CATALOGUE#<shard>``. A page is one Query per
write shard, from the position on (``{"after": "<product id>"}``: the last id shown), merged by id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adminview.models import catalogue_key
from adminview.selectors import Raw, RowsPage, _each_shard, _forward_page, _query, _sort_position
from dynamo import ddb_json
from dynamo.paging import check_limit


@dataclass(frozen=True)
class CatalogueRow:
    product_id: str
    name: str | None
    price: str | None  # as stored: AWS's decimal string
    category: str | None
    description: str | None


def _row(raw: Raw) -> CatalogueRow:
    return CatalogueRow(
        product_id=ddb_json.text(raw, "ProductId") or "",
        name=ddb_json.text(raw, "Name"),
        price=ddb_json.text(raw, "Price"),
        category=ddb_json.text(raw, "Category"),
        description=ddb_json.text(raw, "Description"),
    )


def catalogue(*, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[CatalogueRow]:
    """A page of every product by id (text order), ``limit`` rows after the position."""
    check_limit(limit)
    position = _sort_position(after)
    found = _each_shard(
        lambda n: _query("GSI8", "GSI8PK", catalogue_key(n), "GSI8SK", limit=limit + 1, after=position, forward=True)
    )
    found.sort(key=lambda r: ddb_json.string(r, "GSI8SK") or "")
    page = _forward_page(found, "GSI8SK", limit)
    return RowsPage([_row(r) for r in page.rows], page.next)
