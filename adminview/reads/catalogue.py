"""The catalogue and the customers: every product by id and every customer by name or id, from the view's sparse,
write-sharded indexes (the shop table has no index of all products or customers: AWS's model reads them by id), so
never a Scan of the shop table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adminview.core import schema, values
from adminview.reads.reads import RowsPage, get_many, list_page, list_shards, read_position
from dynamo.paging import check_limit
from shop import keys

CatalogueRow = schema.ProductRow


def catalogue(*, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[CatalogueRow]:
    """A page of every product by id (text order), ``limit`` rows after the position: one Query per shard."""
    check_limit(limit)
    position, index = read_position(after, forward=True), schema.CATALOGUE
    page = list_page(list_shards(schema.catalogue_partition), limit, index=index, after=position)
    return RowsPage([schema.PRODUCT_KIND.read(r) for r in page.rows], page.next)


@dataclass(frozen=True)
class CustomerRow:
    customer_id: str
    name: str | None
    email: str | None


CUSTOMER_SORTS = ("name", "newest")  # "newest": the highest id first (ids are given in order)


def customers(*, sort: str = "name", limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[CustomerRow]:
    """A page of every customer, by name (then id) or newest first, and one BatchGetItem of their profiles."""
    check_limit(limit)
    by_name = sort != "newest"
    index = schema.CATALOGUE if by_name else schema.ORDERS_BY_STATUS
    position = read_position(after, forward=by_name)
    partitions = list_shards(schema.customers_partition)
    page = list_page(partitions, limit, index=index, forward=by_name, after=position, attributes=[])
    ids = [keys.without_prefix(values.string(r, schema.PK) or "", keys.CUSTOMER) or "" for r in page.rows]
    shown = [schema.PROFILE_KIND.attribute("name"), schema.PROFILE_KIND.attribute("email")]
    profiles = map(schema.PROFILE_KIND.read, get_many([schema.profile(c) for c in ids], shown) if ids else [])
    rows = [CustomerRow(cid, p.name, p.email) for cid, p in zip(ids, profiles, strict=True)]
    return RowsPage(rows, page.next)
