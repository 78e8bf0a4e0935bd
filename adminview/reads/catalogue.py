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

from adminview.core import schema
from adminview.reads.reads import Raw, RowsPage, each_shard, get_many, merged_page, query, read_position
from dynamo import ddb_json
from dynamo.paging import check_limit
from shop import keys


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
    ids = [keys.without_prefix(ddb_json.string(r, schema.PK) or "", keys.CUSTOMER) or "" for r in page.rows]
    profiles = get_many([schema.profile(c) for c in ids], attributes=["Name", "Email"]) if ids else []
    rows = [
        CustomerRow(cid, ddb_json.text(p, "Name") if p else None, ddb_json.text(p, "Email") if p else None)
        for cid, p in zip(ids, profiles, strict=True)
    ]
    return RowsPage(rows, page.next)
