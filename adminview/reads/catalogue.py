"""The catalogue and the customers: every product by id and every customer by name or id, from the view's
indexes, never a Scan of the shop table.

The shop table has no index of all products or customers (AWS's model reads them by id only), so the sync keeps a
catalogue row per product and puts each profile in two write-sharded, sparse indexes (``schema.CATALOGUE`` by name,
``schema.ORDERS_BY_STATUS`` by id). A page is one Query per shard from the position on (``{"after": "<sort key>"}``:
the last row shown), merged; a page of customers then reads its profiles with one BatchGetItem.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adminview.core import schema, values
from adminview.reads.reads import RowsPage, each_shard, get_many, merged_page, query, read_position
from dynamo.paging import check_limit
from shop import keys

CatalogueRow = schema.ProductRow


def catalogue(*, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[CatalogueRow]:
    """A page of every product by id (text order), ``limit`` rows after the position: one Query per shard."""
    check_limit(limit)
    position, index = read_position(after, forward=True), schema.CATALOGUE
    found = each_shard(
        schema.list_shards(),
        lambda n: query(schema.catalogue_partition(n), index=index, limit=limit + 1, after=position)[0],
    )
    page = merged_page(found, index.range_key, limit, forward=True)
    return RowsPage([schema.PRODUCT_KIND.read(r) for r in page.rows], page.next)


@dataclass(frozen=True)
class CustomerRow:
    customer_id: str
    name: str | None
    email: str | None


CUSTOMER_SORTS = ("name", "newest")  # "newest": the highest id first (ids are given in order)


def customers(*, sort: str = "name", limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[CustomerRow]:
    """A page of every customer, by name (then id) or newest first: one Query per shard of the index the sort
    reads, and one BatchGetItem of the page's profiles."""
    check_limit(limit)
    by_name = sort != "newest"
    index = schema.CATALOGUE if by_name else schema.ORDERS_BY_STATUS
    position = read_position(after, forward=by_name)
    found = each_shard(
        schema.list_shards(),
        lambda n: query(
            schema.customers_partition(n), index=index, limit=limit + 1, forward=by_name, after=position, attributes=[]
        )[0],
    )
    page = merged_page(found, index.range_key, limit, forward=by_name)
    ids = [keys.without_prefix(values.string(r, schema.PK) or "", keys.CUSTOMER) or "" for r in page.rows]
    shown = [schema.PROFILE_KIND.attribute("name"), schema.PROFILE_KIND.attribute("email")]
    profiles = map(schema.PROFILE_KIND.read, get_many([schema.profile(c) for c in ids], shown) if ids else [])
    rows = [CustomerRow(cid, p.name, p.email) for cid, p in zip(ids, profiles, strict=True)]
    return RowsPage(rows, page.next)
