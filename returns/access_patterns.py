"""The returns table's named reads, each a GetItem or one Query (paged), never a Scan: see docs/returns.md, "Named
reads".

``consistent`` reads (the table's, not GSI1's) are for the writes that decide from what they read.
"""

from __future__ import annotations

from typing import TypeVar

from dynamo.paging import Key, Page, get_or_none, query_page
from returns import keys
from returns.models import OrderRefunds, Refund, ReturnItem, ReturnNote, ReturnsItem

DEFAULT_PAGE = 100
R = TypeVar("R", bound=ReturnsItem)


def return_by_id(*, return_id: str, consistent: bool = False) -> ReturnItem | None:
    key = keys.return_key(return_id)
    return get_or_none(ReturnItem, key, key, consistent=consistent)


def returns_for_order(*, order_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None) -> Page[ReturnItem]:
    """Oldest id first."""
    return query_page(ReturnItem, keys.order(order_id), index_name="GSI1", limit=limit, start_key=start_key)


def refunds_for_order(
    *, order_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None, consistent: bool = False
) -> Page[Refund]:
    """The refunded total (SK ``REFUNDED``) does not match ``f#``."""
    return query_page(
        Refund,
        keys.order(order_id),
        limit=limit,
        start_key=start_key,
        range_key_condition=Refund.sk.startswith(keys.REFUND),
        consistent_read=consistent,
    )


def refunded_for_order(*, order_id: str, consistent: bool = False) -> OrderRefunds | None:
    """None: nothing refunded by this service yet."""
    found = keys.refunded_keys(order_id)
    return get_or_none(OrderRefunds, found["pk"], found["sk"], consistent=consistent)


def money_of_order(*, order_id: str, consistent: bool = False) -> tuple[OrderRefunds | None, list[Refund]]:
    """The partition holds nothing else; another page only past 1 MB of refunds."""
    items = list(ReturnsItem.query(keys.order(order_id), consistent_read=consistent))
    return _first(items, OrderRefunds), [item for item in items if isinstance(item, Refund)]


def return_and_notes(*, return_id: str, consistent: bool = False) -> tuple[ReturnItem | None, list[ReturnNote]]:
    """The notes: every version, oldest first. The partition holds nothing else; another page only past 1 MB."""
    items = list(ReturnsItem.query(keys.return_key(return_id), consistent_read=consistent))
    return _first(items, ReturnItem), [item for item in items if isinstance(item, ReturnNote)]


def _first(items: list[ReturnsItem], kind: type[R]) -> R | None:
    return next((item for item in items if isinstance(item, kind)), None)
