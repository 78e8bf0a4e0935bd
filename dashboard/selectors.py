"""The reads the pages make of the shop and returns tables by key (their access patterns), shaped as the admin
view's selectors answer (a page of ``rows`` and the ``next`` position), so a view never reaches for ``dynamo``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from adminview.core import values
from dynamo import item_codec, side_by_side
from dynamo.no_answer import DYNAMODB_ERRORS, did_not_answer
from dynamo.paging import MAX_PAGE, Page, all_items
from returns import access_patterns as return_patterns
from returns import refunds, services
from returns.models import Refund, ReturnItem, ReturnNote
from shop import access_patterns, history, keys
from shop.errors import NotFound
from shop.keys import OrderStatus
from shop.models import AuditEntry, Inventory, Invoice, Order, Warehouse
from shop.order_reads import OrderCollection, order_collection
from shop.snapshots import read_raw

log = logging.getLogger(__name__)
T = TypeVar("T")
MAX_ROWS = MAX_PAGE  # the most rows one call returns: a CSV export's page


@dataclass(frozen=True)
class KeyPage(Generic[T]):
    """A page of an access pattern: its ``rows`` and ``next`` (the ``LastEvaluatedKey``, signed into a cursor)."""

    rows: list[T]
    next: dict[str, Any] | None


def existing(found: T | None, kind: str, entity_id: str) -> T:
    if found is None:
        raise NotFound(kind, entity_id)
    return found


def paged(page: Page[Any]) -> KeyPage[Any]:
    return KeyPage(page.items, page.next_key)


def invoices(*, customer_id: str, start: str, end: str, limit: int, after: dict[str, Any] | None) -> KeyPage[Invoice]:
    """Pattern 15 (GSI2, PK c#<cid>, SK between i#<start> and i#<end>), newest first."""
    page = access_patterns.invoices_for_customer(
        customer_id=customer_id, start=start, end=end, limit=limit, start_key=after, newest_first=True
    )
    return paged(page)


STILL_EXPECTED = frozenset({OrderStatus.PENDING, OrderStatus.SHIPPED})


def orders_due(*, day: str, limit: int, after: dict[str, Any] | None) -> KeyPage[Order]:
    """Orders still expected on ``day``: one Query on DeliveryDate-index, delivered and cancelled ones left out
    (so a page may hold fewer rows than ``limit``)."""
    page = access_patterns.orders_due_on(date=day, limit=limit, start_key=after)
    return KeyPage([o for o in page.items if o.order_status in STILL_EXPECTED], page.next_key)


def entity_history(*, kind: str, entity_id: str, limit: int, after: dict[str, Any] | None) -> KeyPage[AuditEntry]:
    return paged(history.entity_history(kind=kind, entity_id=entity_id, limit=limit, start_key=after))


def entity_id(kind: str, entity_id: str) -> str:
    """The entity's bare id, or NotFound (404): one GetItem of the entity (its item is its partition's key)."""
    partition = history.partition_of(kind, entity_id)
    if values.string(item_codec.decode_or_none(read_raw(partition, partition)), keys.ENTITY_TYPE) != kind:
        raise NotFound(kind, keys.strip(partition))
    return keys.strip(partition)


def bare_entity_id(kind: str, entity_id: str) -> str:
    """The entity's bare id as its partition names it, without reading it (the pages after the first)."""
    return keys.strip(history.partition_of(kind, entity_id))


def warehouse_stock(*, warehouse_id: str, page_size: int = MAX_PAGE) -> Iterator[Inventory]:
    """Every stock item of a warehouse (pattern 14), ``page_size`` a Query."""
    return all_items(access_patterns.inventory_for_warehouse, page_size=page_size, warehouse_id=warehouse_id)


@dataclass(frozen=True)
class WarehouseStock:
    warehouse: Warehouse
    lines: int  # its stock rows (products it keeps)
    units: int  # what they hold together


def warehouses(*, limit: int, after: dict[str, Any] | None) -> KeyPage[WarehouseStock]:
    """A page of every warehouse (one Query of GSI1), each with its stock summed (pattern 14, side by side)."""
    page = access_patterns.every_warehouse(limit=limit, start_key=after)

    def summed(warehouse: Warehouse) -> WarehouseStock:
        quantities = [item.quantity or 0 for item in warehouse_stock(warehouse_id=warehouse.warehouse_id)]
        return WarehouseStock(warehouse, len(quantities), sum(quantities))

    return KeyPage(side_by_side.map_calls(summed, page.items), page.next_key)


def order_money(collection: OrderCollection) -> tuple[list[ReturnItem], refunds.Refundable]:
    """The order's returns (GSI1 of the returns table) and what remains refundable (its refunds: one Query)."""
    found = list(all_items(return_patterns.returns_for_order, order_id=collection.order.order_id))
    return found, refunds.refundable(collection.order.order_id, collection.invoices)


@dataclass(frozen=True)
class ReturnDetails:
    """One return as its page shows it; ``collection`` None when the order is gone; ``history``: its audit entries."""

    item: ReturnItem
    collection: OrderCollection | None
    money: refunds.Refundable
    refund: Refund | None
    history: list[AuditEntry]
    notes: list[ReturnNote] = field(default_factory=list)  # staff notes on the return, every version


def return_details(return_id: str) -> ReturnDetails:
    """The return and its notes (a consistent Query of its partition), its order's collection (one Query) and
    money (``returns.refunds.refundable``: a GetItem and a Query)."""
    found, notes = return_patterns.return_and_notes(return_id=return_id, consistent=True)
    item = existing(found, "return", return_id)
    try:
        collection: OrderCollection | None = order_collection(item.order_id)
    except NotFound:
        collection = None
    money = refunds.refundable(item.order_id, collection.invoices if collection is not None else ())
    refund = next((r for r in money.refunds if r.refund_id == item.refund_id), None) if item.refund_id else None
    about = [e for e in (collection.history if collection else []) if services.is_about(e.detail, return_id)]
    return ReturnDetails(item, collection, money, refund, about, notes)


def read_or_reason(read: Callable[[], T]) -> tuple[T | None, str | None]:
    """``(read(), None)``, or ``(None, why)`` when DynamoDB refused the read (a table not created yet): for a part
    of a page the rest does not need, which then says why. DynamoDB not answering goes on: the page is a 503."""
    try:
        return read(), None
    except DYNAMODB_ERRORS as exc:
        if did_not_answer(exc):
            raise
        log.warning("left out of the page: %s", exc)
        return None, str(exc)
