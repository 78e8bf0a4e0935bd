"""The access patterns of the shop table: AWS's 16 and ours, one named, typed read each.

Each is a GetItem or one Query (paged: ``limit`` items and a ``next_key`` to continue), never a Scan; each
function's docstring gives its index and key condition. ``shop.pattern_registry`` names them (AWS's names,
plus ours: orders due on a date, a customer's favourites) with their typed parameters for the CLI, the
explorer and the pages.

IDs may be bare or prefixed; dates are ``YYYY-MM-DD`` (an end date covers its whole day) or timestamps.
Bad ids and dates raise ``keys.InvalidId`` / ``timestamps.InvalidDate`` (both ValueError) before any call.
"""

from __future__ import annotations

from typing import TypeVar

from dynamo.paging import Key, Page, get_or_none, query_page
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


def every_warehouse(*, limit: int = DEFAULT_PAGE, start_key: Key | None = None) -> Page[Warehouse]:
    """Every warehouse by id: GSI1 PK=WAREHOUSES (ours: AWS's model reads a warehouse by id only)."""
    return query_page(Warehouse, keys.WAREHOUSES, index_name="GSI1", limit=limit, start_key=start_key)


def _get(model: type[S], pk: str, sk: str) -> S | None:
    return get_or_none(model, pk, sk)


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
    *, warehouse_id: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None, newest_first: bool = False
) -> Page[Shipment]:
    """13 getShipmentByWarehouseId: GSI2 PK=w#<wid>, SK begins_with sh#. ``newest_first`` reads the index
    backwards: shipment ids (``<order id>-<n>``) grow with order ids, so the newest shipments come first."""
    return query_page(
        Shipment,
        keys.warehouse(warehouse_id),
        index_name="GSI2",
        limit=limit,
        start_key=start_key,
        range_key_condition=Shipment.gsi2_sk.startswith(keys.SHIPMENT),
        scan_index_forward=not newest_first,
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
        range_key_condition=Invoice.gsi2_sk.between(keys.invoice_date(low), keys.invoice_date(high)),
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
        range_key_condition=OrderItem.gsi2_sk.between(keys.order_item_date(low), keys.order_item_date(high)),
    )


# --- our additions ----------------------------------------------------------------------------


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
