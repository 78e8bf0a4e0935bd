"""Paging: one page of a Query with the key to continue from, and every page of a raw Scan or Query.

We ask DynamoDB for ``limit + 1`` items and return ``limit``: the extra item tells whether there is a next page, so
the last page never ends with a cursor that leads nowhere. The continuation key is built from the last item returned
(table keys, plus the index keys when an index was queried), exactly what DynamoDB expects as ``ExclusiveStartKey``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pynamodb.attributes import Attribute
from pynamodb.exceptions import DoesNotExist
from pynamodb.indexes import Index
from pynamodb.models import Model

from dynamo.instrumentation import recording

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

M = TypeVar("M", bound=Model)
Key = dict[str, dict[str, Any]]

MAX_PAGE = 1000


def get_or_none(model: type[M], pk: Any, sk: Any, *, consistent: bool = False) -> M | None:
    """GetItem of ``model``: None when there is no item, or one of another entity type under that key (PynamoDB
    refuses to cast it)."""
    try:
        return model.get(pk, sk, consistent_read=consistent)
    except (DoesNotExist, ValueError):
        return None


@dataclass(frozen=True)
class Page(Generic[M]):
    items: list[M]
    next_key: Key | None = None

    def __iter__(self) -> Iterator[M]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


@cache
def indexes(model: type[Model]) -> dict[str, Index[Any]]:
    """The model's indexes by name (inherited ones too)."""
    return {index.Meta.index_name: index for _, index in inspect.getmembers(model, lambda v: isinstance(v, Index))}


def key_attributes(attributes: Iterable[Attribute[Any]]) -> list[Attribute[Any]]:
    """The hash key, then the range key (when there is one), of a table's or an index's attributes."""
    found = list(attributes)
    return [a for a in found if a.is_hash_key] + [a for a in found if a.is_range_key]


def key_pair(model: type[Model], index_name: str | None = None) -> tuple[str, str | None]:
    """(partition, sort) key names of the table (``index_name`` None) or of one of its indexes."""
    attributes = model.get_attributes() if index_name is None else indexes(model)[index_name].Meta.attributes
    hash_key, *range_key = key_attributes(attributes.values())
    return hash_key.attr_name, range_key[0].attr_name if range_key else None


def key_names(model: type[Model], index_name: str | None = None) -> list[str]:
    """The names a key of the table holds, then those of ``index_name``'s key (an index's continuation key)."""
    pairs = [key_pair(model), *([key_pair(model, index_name)] if index_name else [])]
    return [name for pair in pairs for name in pair if name is not None]


def check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"page size must be between 1 and {MAX_PAGE}, got {limit!r}")
    return limit


def query_page(
    model: type[M],
    hash_key: str,
    *,
    limit: int,
    start_key: Key | None = None,
    index_name: str | None = None,
    **query_kwargs: Any,
) -> Page[M]:
    """One page of ``model.query`` (or of an index of it); ``query_kwargs`` go to PynamoDB unchanged."""
    check_limit(limit)
    results = model.query(
        hash_key,
        index_name=index_name,
        limit=limit + 1,
        page_size=limit + 1,
        last_evaluated_key=start_key,
        **query_kwargs,
    )
    items = list(results)
    if len(items) <= limit:
        return Page(items=items, next_key=None)
    items, last = items[:limit], items[limit - 1].serialize()
    return Page(items=items, next_key={name: last[name] for name in key_names(model, index_name)})


def all_items(fetch: Callable[..., Page[M]], *, page_size: int = MAX_PAGE, **kwargs: Any) -> Iterator[M]:
    """Follow a paged function to the end: ``all_items(fn, customer_id=...)``."""
    start_key: Key | None = None
    while True:
        page = fetch(limit=page_size, start_key=start_key, **kwargs)
        yield from page.items
        if page.next_key is None:
            return
        start_key = page.next_key


def raw_pages(
    client: DynamoDBClient,
    operation: Literal["scan", "query"],
    *,
    start_key: Key | None = None,
    before_page: Callable[[], None] | None = None,
    after_page: Callable[[float], None] | None = None,
    **params: Any,
) -> Iterator[Mapping[str, Any]]:
    """Every page of a raw Scan or Query (items as DynamoDB JSON, each page with its ``LastEvaluatedKey``), from
    ``start_key`` (a saved one) on. Pages are requested as the caller iterates, so it can pace or checkpoint between
    them: ``before_page`` runs before each request, ``after_page`` gets the read units each page consumed."""
    if start_key:
        params["ExclusiveStartKey"] = start_key
    pages = iter(client.get_paginator(operation).paginate(**params))
    while True:
        if before_page is not None:
            before_page()
        with recording() as log:
            page = next(pages, None)
        if page is None:
            return
        if after_page is not None:
            after_page(log.read_units)
        yield page


def raw_items(
    client: DynamoDBClient, operation: Literal["scan", "query"], **params: Any
) -> Iterator[dict[str, dict[str, Any]]]:
    for page in raw_pages(client, operation, **params):
        yield from page.get("Items", [])
