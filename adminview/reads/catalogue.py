"""The catalogue: every product by id, from the view's catalogue index, never a Scan of the shop table.

The shop table has no index of all products (AWS's model reads a product by id only), so the sync keeps a
catalogue row per product in a write-sharded, sparse index (``schema.CATALOGUE``). A page is one Query per
shard from the position on (``{"after": "<product id>"}``: the last id shown), merged by id.
"""

from __future__ import annotations

from typing import Any

from adminview.core import schema
from adminview.reads.reads import Item, RowsPage, each_shard, merged_page, query, read_position
from dynamo.paging import check_limit

CatalogueRow = schema.ProductRow


def catalogue_rows(*, limit: int = 50, after: dict[str, Any] | None = None) -> list[Item]:
    """One page of catalogue rows as stored (one Query per shard), ``limit`` + 1 so the caller sees if more."""
    check_limit(limit)
    position = read_position(after, forward=True)
    index = schema.CATALOGUE
    return each_shard(
        schema.list_shards(),
        lambda n: query(schema.catalogue_partition(n), index=index, limit=limit + 1, after=position)[0],
    )


def catalogue(*, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[CatalogueRow]:
    """A page of every product by id (text order), ``limit`` rows after the position."""
    page = merged_page(catalogue_rows(limit=limit, after=after), schema.CATALOGUE.range_key, limit, forward=True)
    return RowsPage([schema.PRODUCT_KIND.read(r) for r in page.rows], page.next)
