"""The access patterns of the shop table: AWS's 16 and ours, one named, typed read each, a GetItem or one paged
Query, never a Scan. A Query is declared once as a ``KeyQuery``, from which its call and the words
``shop.pattern_registry`` shows for it are both derived. Bad ids and dates raise before any call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pynamodb.attributes import UnicodeAttribute
from pynamodb.expressions.condition import Condition

from dynamo.paging import Key, Page, get_or_none, query_page
from shop import keys
from shop.models import (
    Customer,
    Favourite,
    Inventory,
    Invoice,
    Order,
    OrderItem,
    Product,
    Shipment,
    ShopItem,
    Warehouse,
)
from shop.timestamps import parse_day, range_bounds

DEFAULT_PAGE = 100
S = TypeVar("S", bound=ShopItem)
SORT_KEYS: dict[str | None, UnicodeAttribute] = {None: ShopItem.sk, "GSI1": ShopItem.gsi1_sk, "GSI2": ShopItem.gsi2_sk}


@dataclass(frozen=True)
class KeyQuery(Generic[S]):
    """A Query of ``model`` items on ``index`` (None: the table) whose partition key is ``prefix`` and the id
    ``param`` names; its sort key begins with ``begins``, or (``between`` given) lies between that prefix before
    the range's first and last moment (``start``, ``end``), or (``same``) equals the partition key."""

    model: type[S]
    param: str
    prefix: str
    index: str | None = None
    begins: str | None = None
    between: str | None = None
    same: bool = False

    def __call__(
        self,
        *,
        limit: int = DEFAULT_PAGE,
        start_key: Key | None = None,
        newest_first: bool = False,
        start: str | None = None,
        end: str | None = None,
        **subject: str,
    ) -> Page[S]:
        takes = {self.param, "start", "end"} if self.between is not None else {self.param}
        if {*subject, *(name for name, given in (("start", start), ("end", end)) if given is not None)} != takes:
            raise TypeError(f"this pattern takes {', '.join(sorted(takes))}")
        partition = self.prefix + keys.bare(subject[self.param], self.prefix)
        sort_key = SORT_KEYS[self.index]
        condition: Condition | None = sort_key.startswith(self.begins) if self.begins is not None else None
        if self.same:
            condition = sort_key == partition
        if self.between is not None and start is not None and end is not None:
            low, high = range_bounds(start, end)
            condition = sort_key.between(self.between + low, self.between + high)
        return query_page(
            self.model,
            partition,
            index_name=self.index,
            limit=limit,
            start_key=start_key,
            range_key_condition=condition,
            scan_index_forward=False if newest_first else None,
        )

    @property
    def condition(self) -> str:
        """The key condition in words, as AWS's access-pattern table writes it."""
        named = f"{self.index}-" if self.index else ""
        words = f"{named}PK = {self.prefix}<{self.param}>"
        if self.begins is not None:
            words += f", {named}SK begins with {self.begins}"
        if self.between is not None:
            words += f", {named}SK between {self.between}<from> and {self.between}<to>"
        return words + (f", {named}SK = {self.prefix}<{self.param}>" if self.same else "")


# --- 1-3: entities by id (GetItem) -----------------------------------------------------------------


@dataclass(frozen=True)
class KeyGet(Generic[S]):
    """A GetItem of the ``model`` item whose PK and SK are both ``prefix`` and the id ``param`` names."""

    model: type[S]
    param: str
    prefix: str

    def __call__(self, **subject: str) -> S | None:
        if set(subject) != {self.param}:
            raise TypeError(f"this pattern takes {self.param}, not {', '.join(subject) or 'nothing'}")
        key = self.prefix + keys.bare(subject[self.param], self.prefix)
        return get_or_none(self.model, key, key)

    @property
    def condition(self) -> str:
        return f"PK = {self.prefix}<{self.param}>, SK = {self.prefix}<{self.param}>"


customer_by_id = KeyGet(Customer, "customer_id", keys.CUSTOMER)  # 1
product_by_id = KeyGet(Product, "product_id", keys.PRODUCT)  # 2
warehouse_by_id = KeyGet(Warehouse, "warehouse_id", keys.WAREHOUSE)  # 3


def every_warehouse(*, limit: int = DEFAULT_PAGE, start_key: Key | None = None) -> Page[Warehouse]:
    """Every warehouse by id: GSI1 PK=WAREHOUSES (ours)."""
    return query_page(Warehouse, keys.WAREHOUSES, index_name="GSI1", limit=limit, start_key=start_key)


# --- 4-8: item collections on the base table; 9-12: GSI1; 13-16: GSI2 (``newest_first`` reads backwards) --------

_CID, _PID, _WID, _OID = "customer_id", "product_id", "warehouse_id", "order_id"
inventory_for_product = KeyQuery(Inventory, _PID, keys.PRODUCT, begins=keys.WAREHOUSE)  # 4
order_details = KeyQuery(ShopItem, _OID, keys.ORDER)  # 5: the order, its items, invoice, shipments
order_items = KeyQuery(OrderItem, _OID, keys.ORDER, begins=keys.PRODUCT)  # 6
invoices_for_order = KeyQuery(Invoice, _OID, keys.ORDER, begins=keys.INVOICE)  # 7
shipments_for_order = KeyQuery(Shipment, _OID, keys.ORDER, begins=keys.SHIPMENT)  # 8 (``shp#`` items do not match)
order_items_for_product = KeyQuery(OrderItem, _PID, keys.PRODUCT, "GSI1", between="")  # 9
invoice_query = KeyQuery(Invoice, "invoice_id", keys.INVOICE, "GSI1", same=True)  # 10 and 11
shipment_details = KeyQuery(ShopItem, "shipment_id", keys.SHIPMENT, "GSI1")  # 12: the shipment and its items
# 13: shipment ids (``<order id>-<n>``) grow with order ids, so ``newest_first`` gives the newest shipments first
shipments_for_warehouse = KeyQuery(Shipment, _WID, keys.WAREHOUSE, "GSI2", begins=keys.SHIPMENT)
inventory_for_warehouse = KeyQuery(Inventory, _WID, keys.WAREHOUSE, "GSI2", begins=keys.PRODUCT)  # 14
invoices_for_customer = KeyQuery(Invoice, _CID, keys.CUSTOMER, "GSI2", between=keys.INVOICE_DATE)  # 15
order_items_for_customer = KeyQuery(OrderItem, _CID, keys.CUSTOMER, "GSI2", between=keys.ORDER_ITEM_DATE)  # 16
# ours: the customer item itself (SK = c#<cid>) does not match
favourites_for_customer = KeyQuery(Favourite, _CID, keys.CUSTOMER, begins=keys.FAVOURITE)


def invoice_by_id(*, invoice_id: str) -> Invoice | None:
    """10 getInvoiceByInvoiceId: GSI1 PK=i#<iid>, SK=i#<iid>."""
    page = invoice_query(invoice_id=invoice_id, limit=1)
    return page.items[0] if page.items else None


def orders_due_on(*, date: str, limit: int = DEFAULT_PAGE, start_key: Key | None = None) -> Page[Order]:
    """Orders expected on ``date`` (``YYYY-MM-DD``): Query DeliveryDate-index PK=DeliveryDate, by order key. Orders
    still lacking ``DeliveryDate`` (before ``backfill delivery-date``) are not listed."""
    day = parse_day(date, what="delivery date").isoformat()
    return query_page(Order, day, index_name="DeliveryDate-index", limit=limit, start_key=start_key)
