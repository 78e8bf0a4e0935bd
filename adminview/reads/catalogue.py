"""The catalogue: every product by id, from the view's catalogue index, never a Scan of the shop table.

The shop table has no index of all products (AWS's model reads a product by id only), so the sync keeps a
catalogue row per product in a write-sharded, sparse index (``schema.CATALOGUE``). A page is one Query per
shard from the position on (``{"after": "<product id>"}``: the last id shown), merged by id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adminview.core import schema
from adminview.reads.reads import Raw, RowsPage, each_shard, merged_page, query, read_position
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


def catalogue_rows(*, limit: int = 50, after: dict[str, Any] | None = None) -> list[Raw]:
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
    return RowsPage([_row(r) for r in page.rows], page.next)
