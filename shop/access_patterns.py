"""The 16 access patterns of AWS's online-shop model, one named, typed read each (AWS's access-pattern table).

Each is a GetItem or one Query (paged: ``limit`` items and a ``next_key`` to continue), never a Scan:

| #  | name                                 | index | key condition                                   |
|----|--------------------------------------|-------|-------------------------------------------------|
| 1  | getCustomerByCustomerId              | table | PK=c#cid, SK=c#cid (GetItem)                    |
| 2  | getProductByProductId                | table | PK=p#pid, SK=p#pid (GetItem)                    |
| 3  | getWarehouseByWarehouseId            | table | PK=w#wid, SK=w#wid (GetItem)                    |
| 4  | getProductInventoryByProductId       | table | PK=p#pid, SK begins_with w#                     |
| 5  | getOrderDetailsByOrderId             | table | PK=o#oid                                        |
| 6  | getProductByOrderId                  | table | PK=o#oid, SK begins_with p#                     |
| 7  | getInvoiceByOrderId                  | table | PK=o#oid, SK begins_with i#                     |
| 8  | getShipmentByOrderId                 | table | PK=o#oid, SK begins_with sh#                    |
| 9  | getOrderByProductIdForDateRange      | GSI1  | PK=p#pid, SK between date1 and date2            |
| 10 | getInvoiceByInvoiceId                | GSI1  | PK=i#iid, SK=i#iid                              |
| 11 | getPaymentByInvoiceId                | GSI1  | PK=i#iid, SK=i#iid (payments live on the invoice)|
| 12 | getShipmentDetailsByShipmentId       | GSI1  | PK=sh#sid                                       |
| 13 | getShipmentByWarehouseId             | GSI2  | PK=w#wid, SK begins_with sh#                    |
| 14 | getProductInventoryByWarehouseId     | GSI2  | PK=w#wid, SK begins_with p#                     |
| 15 | getInvoiceByCustomerIdForDateRange   | GSI2  | PK=c#cid, SK between i#date1 and i#date2        |
| 16 | getProductsByCustomerIdForDateRange  | GSI2  | PK=c#cid, SK between p#date1 and p#date2        |

Our additions (not in AWS's model) follow the same rules: ``orders_due_on`` (DeliveryDate-index) and
``favourites_for_customer`` (table, PK=c#cid, SK begins_with FAVOURITE#).

IDs may be bare or prefixed; dates are ``YYYY-MM-DD`` (an end date covers its whole day) or timestamps.
Bad ids and dates raise ``keys.InvalidId`` / ``timestamps.InvalidDate`` (both ValueError) before any call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from pynamodb.exceptions import DoesNotExist

from dynamo.paging import Key, Page, all_items, query_page
from shop import keys
from shop.models import (
    Customer,
    Favourite,
    Inventory,
    Invoice,
    Order,
    OrderItem,
    Payment,
    Product,
    Shipment,
    ShopItem,
    Warehouse,
)
from shop.timestamps import parse_day, range_bounds

DEFAULT_PAGE = 100


# --- 1-3: entities by id (GetItem) -----------------------------------------------------------------

S = TypeVar("S", bound=ShopItem)


def customer_by_id(*, customer_id: str) -> Customer | None:
    """1 getCustomerByCustomerId: GetItem PK=SK=c#<cid>."""
    key = keys.customer(customer_id)
    return _get(Customer, key, key)


def product_by_id(*, product_id: str) -> Product | None:
    """2 getProductByProductId: GetItem PK=SK=p#<pid>."""
    key = keys.product(product_id)
    return _get(Product, key, key)


def warehouse_by_id(*, warehouse_id: str) -> Warehouse | None:
    """3 getWarehouseByWarehouseId: GetItem PK=SK=w#<wid>."""
    key = keys.warehouse(warehouse_id)
    return _get(Warehouse, key, key)


def _get(model: type[S], pk: str, sk: str) -> S | None:
    try:
        return model.get(pk, sk)
    except DoesNotExist:
        return None
    except ValueError:  # an item of another entity type under that key (PynamoDB refuses to cast it)
        return None


# --- 4-8: item collections on the base table --------------------------------------------------------


def inventory_for_product(
    *, product_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None
) -> Page[Inventory]:
    """4 getProductInventoryByProductId: Query PK=p#<pid>, SK begins_with w#."""
    return query_page(
        Inventory,
        keys.product(product_id),
        limit=limit,
        start_key=start_key,
        range_key_condition=Inventory.sk.startswith(keys.WAREHOUSE),
    )


def order_details(*, order_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None) -> Page[ShopItem]:
    """5 getOrderDetailsByOrderId: Query PK=o#<oid> (the order, its items, invoice, shipments)."""
    return query_page(ShopItem, keys.order(order_id), limit=limit, start_key=start_key)


def order_items(*, order_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None) -> Page[OrderItem]:
    """6 getProductByOrderId: Query PK=o#<oid>, SK begins_with p#."""
    return query_page(
        OrderItem,
        keys.order(order_id),
        limit=limit,
        start_key=start_key,
        range_key_condition=OrderItem.sk.startswith(keys.PRODUCT),
    )


def invoices_for_order(*, order_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None) -> Page[Invoice]:
    """7 getInvoiceByOrderId: Query PK=o#<oid>, SK begins_with i#."""
    return query_page(
        Invoice,
        keys.order(order_id),
        limit=limit,
        start_key=start_key,
        range_key_condition=Invoice.sk.startswith(keys.INVOICE),
    )


def shipments_for_order(*, order_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None) -> Page[Shipment]:
    """8 getShipmentByOrderId: Query PK=o#<oid>, SK begins_with sh# (``shp#`` items do not match)."""
    return query_page(
        Shipment,
        keys.order(order_id),
        limit=limit,
        start_key=start_key,
        range_key_condition=Shipment.sk.startswith(keys.SHIPMENT),
    )


# --- 9-12: GSI1 ---------------------------------------------------------------------------------------


def order_items_for_product(
    *,
    product_id: str,
    start: str,
    end: str,
    limit: int = DEFAULT_PAGE,
    start_key: Key | None = None,
    newest_first: bool = False,
) -> Page[OrderItem]:
    """9 getOrderByProductIdForDateRange: GSI1 PK=p#<pid>, SK between date1 and date2."""
    low, high = range_bounds(start, end)
    return query_page(
        OrderItem,
        keys.product(product_id),
        index_name="GSI1",
        limit=limit,
        start_key=start_key,
        range_key_condition=OrderItem.gsi1_sk.between(low, high),
        scan_index_forward=not newest_first,
    )


def invoice_by_id(*, invoice_id: str) -> Invoice | None:
    """10 getInvoiceByInvoiceId: GSI1 PK=i#<iid>, SK=i#<iid>."""
    key = keys.invoice(invoice_id)
    page = query_page(Invoice, key, index_name="GSI1", limit=1, range_key_condition=Invoice.gsi1_sk == key)
    return page.items[0] if page.items else None


def payments_for_invoice(*, invoice_id: str) -> list[Payment] | None:
    """11 getPaymentByInvoiceId: the same GSI1 query as 10; payments are ``Detail.Payments`` of the invoice.
    None when there is no such invoice."""
    invoice = invoice_by_id(invoice_id=invoice_id)
    return None if invoice is None else invoice.payments


def shipment_details(*, shipment_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None) -> Page[ShopItem]:
    """12 getShipmentDetailsByShipmentId: GSI1 PK=sh#<sid> (the shipment and its shipment items)."""
    return query_page(ShopItem, keys.shipment(shipment_id), index_name="GSI1", limit=limit, start_key=start_key)


# --- 13-16: GSI2 --------------------------------------------------------------------------------------


def shipments_for_warehouse(
    *, warehouse_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None
) -> Page[Shipment]:
    """13 getShipmentByWarehouseId: GSI2 PK=w#<wid>, SK begins_with sh#."""
    return query_page(
        Shipment,
        keys.warehouse(warehouse_id),
        index_name="GSI2",
        limit=limit,
        start_key=start_key,
        range_key_condition=Shipment.gsi2_sk.startswith(keys.SHIPMENT),
    )


def inventory_for_warehouse(
    *, warehouse_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None
) -> Page[Inventory]:
    """14 getProductInventoryByWarehouseId: GSI2 PK=w#<wid>, SK begins_with p#."""
    return query_page(
        Inventory,
        keys.warehouse(warehouse_id),
        index_name="GSI2",
        limit=limit,
        start_key=start_key,
        range_key_condition=Inventory.gsi2_sk.startswith(keys.PRODUCT),
    )


def invoices_for_customer(
    *,
    customer_id: str,
    start: str,
    end: str,
    limit: int = DEFAULT_PAGE,
    start_key: Key | None = None,
    newest_first: bool = False,
) -> Page[Invoice]:
    """15 getInvoiceByCustomerIdForDateRange: GSI2 PK=c#<cid>, SK between i#<date1> and i#<date2>."""
    low, high = range_bounds(start, end)
    return query_page(
        Invoice,
        keys.customer(customer_id),
        index_name="GSI2",
        limit=limit,
        start_key=start_key,
        scan_index_forward=not newest_first,
        range_key_condition=Invoice.gsi2_sk.between(keys.INVOICE_DATE + low, keys.INVOICE_DATE + high),
    )


def order_items_for_customer(
    *,
    customer_id: str,
    start: str,
    end: str,
    limit: int = DEFAULT_PAGE,
    start_key: Key | None = None,
    newest_first: bool = False,
) -> Page[OrderItem]:
    """16 getProductsByCustomerIdForDateRange: GSI2 PK=c#<cid>, SK between p#<date1> and p#<date2>."""
    low, high = range_bounds(start, end)
    return query_page(
        OrderItem,
        keys.customer(customer_id),
        index_name="GSI2",
        limit=limit,
        start_key=start_key,
        scan_index_forward=not newest_first,
        range_key_condition=OrderItem.gsi2_sk.between(keys.ORDER_ITEM_DATE + low, keys.ORDER_ITEM_DATE + high),
    )


# --- our additions to AWS's model ----------------------------------------------------------------------------


def orders_due_on(*, date: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None) -> Page[Order]:
    """Orders expected to be delivered on ``date`` (``YYYY-MM-DD``): one Query on DeliveryDate-index,
    PK=DeliveryDate, ordered by order key. The index projects only what the page shows (Date, Status,
    Total, ItemCount; keys give order and customer). Orders still lacking ``DeliveryDate`` (before
    ``backfill delivery-date``) are not in the index and so not listed."""
    day = parse_day(date, what="delivery date").isoformat()
    return query_page(Order, day, index_name="DeliveryDate-index", limit=limit, start_key=start_key)


def favourites_for_customer(
    *, customer_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None
) -> Page[Favourite]:
    """A customer's favourite products: Query PK=c#<cid>, SK begins_with FAVOURITE# (the customer item
    itself, SK=c#<cid>, does not match)."""
    return query_page(
        Favourite,
        keys.customer(customer_id),
        limit=limit,
        start_key=start_key,
        range_key_condition=Favourite.sk.startswith(keys.FAVOURITE),
    )


# --- the registry: AWS's names -> how to run them from a command line ---------------------------------


@dataclass(frozen=True)
class AccessPattern:
    number: int
    name: str
    params: tuple[str, ...]
    run: Callable[..., Iterator[ShopItem]]
    description: str

    @property
    def usage(self) -> str:
        return " ".join([self.name, *(p.upper() for p in self.params)])


def _one(fetch: Callable[..., ShopItem | None]) -> Callable[..., Iterator[ShopItem]]:
    def run(**kwargs: str) -> Iterator[ShopItem]:
        item = fetch(**kwargs)
        if item is not None:
            yield item

    return run


def _every(fetch: Callable[..., Page[Any]]) -> Callable[..., Iterator[ShopItem]]:
    def run(**kwargs: str) -> Iterator[ShopItem]:
        yield from all_items(functools.partial(fetch, **kwargs))

    return run


PATTERNS: dict[str, AccessPattern] = {
    p.name: p
    for p in [
        AccessPattern(1, "getCustomerByCustomerId", ("customer_id",), _one(customer_by_id), "a customer"),
        AccessPattern(2, "getProductByProductId", ("product_id",), _one(product_by_id), "a product"),
        AccessPattern(3, "getWarehouseByWarehouseId", ("warehouse_id",), _one(warehouse_by_id), "a warehouse"),
        AccessPattern(
            4,
            "getProductInventoryByProductId",
            ("product_id",),
            _every(inventory_for_product),
            "a product's stock in every warehouse",
        ),
        AccessPattern(5, "getOrderDetailsByOrderId", ("order_id",), _every(order_details), "everything about an order"),
        AccessPattern(6, "getProductByOrderId", ("order_id",), _every(order_items), "an order's items"),
        AccessPattern(7, "getInvoiceByOrderId", ("order_id",), _every(invoices_for_order), "an order's invoice"),
        AccessPattern(8, "getShipmentByOrderId", ("order_id",), _every(shipments_for_order), "an order's shipments"),
        AccessPattern(
            9,
            "getOrderByProductIdForDateRange",
            ("product_id", "start", "end"),
            _every(order_items_for_product),
            "order items of a product in a date range",
        ),
        AccessPattern(10, "getInvoiceByInvoiceId", ("invoice_id",), _one(invoice_by_id), "an invoice"),
        AccessPattern(
            11,
            "getPaymentByInvoiceId",
            ("invoice_id",),
            _one(invoice_by_id),
            "an invoice's payments (the invoice item, payments in Detail.Payments)",
        ),
        AccessPattern(
            12, "getShipmentDetailsByShipmentId", ("shipment_id",), _every(shipment_details), "a shipment and its items"
        ),
        AccessPattern(
            13,
            "getShipmentByWarehouseId",
            ("warehouse_id",),
            _every(shipments_for_warehouse),
            "a warehouse's shipments",
        ),
        AccessPattern(
            14,
            "getProductInventoryByWarehouseId",
            ("warehouse_id",),
            _every(inventory_for_warehouse),
            "a warehouse's stock of every product",
        ),
        AccessPattern(
            15,
            "getInvoiceByCustomerIdForDateRange",
            ("customer_id", "start", "end"),
            _every(invoices_for_customer),
            "a customer's invoices in a date range",
        ),
        AccessPattern(
            16,
            "getProductsByCustomerIdForDateRange",
            ("customer_id", "start", "end"),
            _every(order_items_for_customer),
            "a customer's ordered products in a date range",
        ),
    ]
}


def run_pattern(name: str, args: list[str]) -> Iterator[ShopItem]:
    """Run a pattern by its AWS name with positional string arguments; raises LookupError/ValueError."""
    pattern = PATTERNS.get(name)
    if pattern is None:
        raise LookupError(f"unknown access pattern {name!r}; known: {', '.join(PATTERNS)}")
    if len(args) != len(pattern.params):
        raise ValueError(f"{name} takes {len(pattern.params)} argument(s): {pattern.usage}")
    kwargs = dict(zip(pattern.params, args, strict=True))
    return pattern.run(**kwargs)
