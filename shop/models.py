"""The shop table as PynamoDB models, wire-compatible with AWS's ``AnOnlineShop_13.json``: one base (keys, GSI keys,
``EntityType`` discriminator), one class per entity. Discriminator values are stored data: never rename one.
Attributes we added are optional, because AWS's sample and older items lack them (docs/migrations.md).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Generic, TypeVar, overload

from pynamodb.attributes import (
    BooleanAttribute,
    DiscriminatorAttribute,
    ListAttribute,
    NumberAttribute,
    UnicodeAttribute,
    VersionAttribute,
)
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, IncludeProjection

from dynamo.models import BaseMeta, InstrumentedModel
from dynamo.tables import TableSpec
from shop import keys
from shop.attributes import DecimalNumberAttribute, DecimalStringAttribute, IntStringAttribute, Map, TimestampAttribute
from shop.delivery import delivery_date_for
from shop.keys import OrderStatus

T = TypeVar("T")


class GSI1(GlobalSecondaryIndex["ShopItem"]):
    """Overloaded: product -> order items by date; invoice -> itself; shipment -> itself and its items."""

    class Meta:
        index_name = "GSI1"
        projection = AllProjection()

    gsi1_pk = UnicodeAttribute(hash_key=True, attr_name="GSI1-PK")
    gsi1_sk = UnicodeAttribute(range_key=True, attr_name="GSI1-SK")


class GSI2(GlobalSecondaryIndex["ShopItem"]):
    """Overloaded: warehouse -> shipments and inventory; customer -> invoices and order items by date."""

    class Meta:
        index_name = "GSI2"
        projection = AllProjection()

    gsi2_pk = UnicodeAttribute(hash_key=True, attr_name="GSI2-PK")
    gsi2_sk = UnicodeAttribute(range_key=True, attr_name="GSI2-SK")


# What the "orders due on a date" page shows, besides the keys (PK = order, SK = customer) which every
# index projects. EntityType must be there: PynamoDB needs the discriminator to build an Order.
DELIVERY_DATE_PROJECTED = ["EntityType", "Date", "Status", "Total", "ItemCount"]


class DeliveryDateIndex(GlobalSecondaryIndex["ShopItem"]):
    """Orders by expected delivery date (``YYYY-MM-DD``). Sparse: only orders carry ``DeliveryDate``."""

    class Meta:
        index_name = "DeliveryDate-index"
        projection = IncludeProjection(DELIVERY_DATE_PROJECTED)

    delivery_date = UnicodeAttribute(hash_key=True, attr_name="DeliveryDate")
    pk = UnicodeAttribute(range_key=True, attr_name="PK")


class OutboxIndex(GlobalSecondaryIndex["ShopItem"]):
    """Unsent notifications by when they are next tried. Sparse: only an unsent one carries ``Outbox``
    (write-sharded: ``keys.outbox``), so the sender's Queries read what waits, never the table."""

    class Meta:
        index_name = "Outbox-index"
        projection = AllProjection()

    outbox = UnicodeAttribute(hash_key=True, attr_name="Outbox")
    next_attempt = UnicodeAttribute(range_key=True, attr_name="NextAttempt")


class ShopItem(InstrumentedModel):
    class Meta(BaseMeta):
        table_name = keys.table_name()
        stream_view_type = "NEW_AND_OLD_IMAGES"

    pk = UnicodeAttribute(hash_key=True, attr_name="PK")
    sk = UnicodeAttribute(range_key=True, attr_name="SK")
    entity_type = DiscriminatorAttribute(attr_name="EntityType")
    gsi1_pk = UnicodeAttribute(null=True, attr_name="GSI1-PK")
    gsi1_sk = UnicodeAttribute(null=True, attr_name="GSI1-SK")
    gsi2_pk = UnicodeAttribute(null=True, attr_name="GSI2-PK")
    gsi2_sk = UnicodeAttribute(null=True, attr_name="GSI2-SK")

    gsi1 = GSI1()
    gsi2 = GSI2()
    delivery_date_index = DeliveryDateIndex()
    outbox_index = OutboxIndex()

    @property
    def key(self) -> tuple[str, str]:
        return self.pk, self.sk


class IdIn(Generic[T]):
    """The bare id in one of an item's keys (``o#42`` -> ``42``), read like a property. ``IdIn[str | None]``: an
    index key, absent on some items (AWS's older ones)."""

    def __init__(self, key: str) -> None:
        self.key = key

    @overload
    def __get__(self, item: None, owner: type[Any]) -> IdIn[T]: ...
    @overload
    def __get__(self, item: ShopItem, owner: type[Any]) -> T: ...
    def __get__(self, item: ShopItem | None, owner: type[Any]) -> Any:
        key = getattr(item, self.key) if item is not None else None
        return self if item is None else keys.strip(key) if key else None


class Address(Map[str, str]):
    country = UnicodeAttribute(null=True, attr_name="Country")
    county = UnicodeAttribute(null=True, attr_name="County")
    city = UnicodeAttribute(null=True, attr_name="City")
    street = UnicodeAttribute(null=True, attr_name="Street")
    number = UnicodeAttribute(null=True, attr_name="Number")
    zip_code = UnicodeAttribute(null=True, attr_name="ZipCode")

    def one_line(self) -> str:
        street = " ".join(p for p in (self.street, self.number) if p)
        town = " ".join(p for p in (self.zip_code, self.city) if p)
        return ", ".join(p for p in (street, town, self.county, self.country) if p)


class Customer(ShopItem, discriminator="customer"):
    """PK = SK = c#<cid>."""

    email = UnicodeAttribute(null=True, attr_name="Email")
    name = UnicodeAttribute(null=True, attr_name="Name")
    address = Address(null=True, attr_name="Address")
    customer_id = IdIn[str]("pk")


class ProductDetail(Map[str, str]):
    name = UnicodeAttribute(null=True, attr_name="Name")
    description = UnicodeAttribute(null=True, attr_name="Description")


class Product(ShopItem, discriminator="product"):
    """PK = SK = p#<pid>. ``Version``: the counter an edit's save is conditioned on, absent until the first."""

    detail = ProductDetail(null=True, attr_name="Detail")
    price = DecimalStringAttribute(null=True, attr_name="Price")
    category = UnicodeAttribute(null=True, attr_name="Category")  # ours, optional (e.g. "Books")
    # A plain number, not PynamoDB's VersionAttribute: that one would add itself to every save (seeding too).
    version = NumberAttribute(null=True, attr_name="Version")
    product_id = IdIn[str]("pk")

    @property
    def name(self) -> str:
        return (self.detail.name if self.detail else None) or self.product_id


class Warehouse(ShopItem, discriminator="warehouse"):
    """PK = SK = w#<wid>."""

    address = Address(null=True, attr_name="Address")
    name = UnicodeAttribute(null=True, attr_name="Name")
    warehouse_id = IdIn[str]("pk")


class Inventory(ShopItem, discriminator="warehouseItem"):
    """PK p#<pid>, SK w#<wid>; GSI2 w#<wid> / p#<pid>. ``Quantity`` is what the warehouse holds."""

    quantity = IntStringAttribute(attr_name="Quantity")
    product_id = IdIn[str]("pk")
    warehouse_id = IdIn[str]("sk")


class Order(ShopItem, discriminator="order"):
    """PK o#<oid>, SK c#<cid>. Items without ``Status`` have unknown status; without ``DeliveryDate`` (until
    ``backfill delivery-date``), ``expected_delivery`` derives one."""

    date = TimestampAttribute(null=True, attr_name="Date")
    status = UnicodeAttribute(null=True, attr_name="Status")
    version = VersionAttribute(null=True, attr_name="Version")
    total = DecimalStringAttribute(null=True, attr_name="Total")
    item_count = IntStringAttribute(null=True, attr_name="ItemCount")
    delivery_date = UnicodeAttribute(null=True, attr_name="DeliveryDate")
    cancel_reason = UnicodeAttribute(null=True, attr_name="CancelReason")  # why staff cancelled it, in words
    order_id = IdIn[str]("pk")
    customer_id = IdIn[str]("sk")
    ship_to = Address(null=True, attr_name="ShipTo")  # where staff said it goes; absent: the customer's address

    @property
    def order_status(self) -> OrderStatus | None:
        try:
            return OrderStatus(self.status) if self.status else None
        except ValueError:
            return None

    @property
    def expected_delivery(self) -> str | None:
        """The stored ``DeliveryDate``, else one derived from the order date; never written back from a read."""
        if self.delivery_date:
            return self.delivery_date
        return delivery_date_for(self.date) if self.date else None

    @property
    def delivery_date_stored(self) -> bool:
        return bool(self.delivery_date)


class OrderItem(ShopItem, discriminator="orderItem"):
    """PK o#<oid>, SK p#<pid>; GSI1 p#<pid> / <date>; GSI2 c#<cid> / p#<date>."""

    quantity = IntStringAttribute(attr_name="Quantity")
    price = DecimalStringAttribute(null=True, attr_name="Price")
    warehouse_id = UnicodeAttribute(null=True, attr_name="WarehouseId")
    product_name = UnicodeAttribute(null=True, attr_name="ProductName")
    category = UnicodeAttribute(null=True, attr_name="Category")  # the product's when the order was placed
    favourite = BooleanAttribute(null=True, attr_name="Favourite")  # set with the favourite, in one transaction
    order_id = IdIn[str]("pk")
    product_id = IdIn[str]("sk")

    @property
    def is_favourite(self) -> bool:
        return bool(self.favourite)

    customer_id = IdIn[str | None]("gsi2_pk")

    @property
    def date(self) -> str | None:
        return self.gsi1_sk

    @property
    def line_total(self) -> Decimal | None:
        return self.price * self.quantity if self.price is not None else None


class Payment(Map[str, object]):
    """One entry of ``Detail.Payments`` on an invoice. ``TransactionId`` (provider reference) is ours."""

    type = UnicodeAttribute(null=True, attr_name="Type")
    amount = DecimalNumberAttribute(null=True, attr_name="Amount")
    data = UnicodeAttribute(null=True, attr_name="Data")
    transaction_id = UnicodeAttribute(null=True, attr_name="TransactionId")


class InvoiceDetail(Map[str, object]):
    payments = ListAttribute(of=Payment, null=True, attr_name="Payments")


class Invoice(ShopItem, discriminator="invoice"):
    """PK o#<oid>, SK i#<iid>; GSI1 i#<iid> / i#<iid>; GSI2 c#<cid> / i#<date>. Payments in ``Detail``."""

    amount = DecimalStringAttribute(null=True, attr_name="Amount")
    date = TimestampAttribute(null=True, attr_name="Date")
    detail = InvoiceDetail(null=True, attr_name="Detail")
    invoice_id = IdIn[str]("sk")
    order_id = IdIn[str]("pk")
    customer_id = IdIn[str | None]("gsi2_pk")

    @property
    def payments(self) -> list[Payment]:
        return list(self.detail.payments or []) if self.detail else []


class Shipment(ShopItem, discriminator="shipment"):
    """PK o#<oid>, SK sh#<sid>; GSI1 sh#<sid> / sh#<sid>; GSI2 w#<wid> / sh#<sid>."""

    address = Address(null=True, attr_name="Address")
    type = UnicodeAttribute(null=True, attr_name="Type")
    date = TimestampAttribute(null=True, attr_name="Date")
    warehouse_id = UnicodeAttribute(null=True, attr_name="WarehouseId")
    carrier = UnicodeAttribute(null=True, attr_name="Carrier")
    tracking_number = UnicodeAttribute(null=True, attr_name="TrackingNumber")
    shipment_id = IdIn[str]("sk")
    order_id = IdIn[str]("pk")


class ShipmentItem(ShopItem, discriminator="shipmentItem"):
    """PK o#<oid>, SK shp#<id>; GSI1 sh#<sid> / p#<pid>."""

    quantity = IntStringAttribute(attr_name="Quantity")
    shipment_id = IdIn[str | None]("gsi1_pk")
    product_id = IdIn[str | None]("gsi1_sk")


class PaymentItem(ShopItem, discriminator="payment"):
    """AWS's early draft (``AnOnlineShop_facets.json``) kept payments as items: PK o#<oid>, SK pmn#<id>,
    GSI1 i#<iid> / pmn#<id>. Read and imported so those files load; we never write it."""

    type = UnicodeAttribute(null=True, attr_name="Type")
    amount = DecimalStringAttribute(null=True, attr_name="Amount")
    date = TimestampAttribute(null=True, attr_name="Date")


class Favourite(ShopItem, discriminator="favourite"):
    """PK c#<cid>, SK FAVOURITE#<pid>: the product's name and price when it was marked, and the order it was
    marked from (whose order item's ``Favourite`` is written in the same transaction)."""

    product_name = UnicodeAttribute(null=True, attr_name="ProductName")
    category = UnicodeAttribute(null=True, attr_name="Category")  # the product's when the order was placed
    price = DecimalStringAttribute(null=True, attr_name="Price")
    order_id = UnicodeAttribute(null=True, attr_name="OrderId")
    date = TimestampAttribute(null=True, attr_name="Date")
    customer_id = IdIn[str]("pk")
    product_id = IdIn[str]("sk")


class AttributeChange(Map[str, str]):
    """One edited attribute's path (``Address.City``) and its text before and after (absent: missing)."""

    attribute = UnicodeAttribute(attr_name="Attribute")
    before = UnicodeAttribute(null=True, attr_name="Before")
    after = UnicodeAttribute(null=True, attr_name="After")


class AuditEntry(ShopItem, discriminator="audit"):
    """One staff change, written in the change's transaction (``shop.audit``), SK ``AUDIT#<at>#<id>``: in the
    order's partition (so the order-details Query reads its history), ``AUDIT#system`` for a change to no order,
    or an edited entity's own partition (``c#<cid>``, ``p#<pid>`` for a product and its stock, ``w#<wid>``)."""

    action = UnicodeAttribute(attr_name="Action")
    user = UnicodeAttribute(attr_name="User")
    at = UnicodeAttribute(attr_name="At")
    request_id = UnicodeAttribute(null=True, attr_name="RequestId")
    order_id = UnicodeAttribute(null=True, attr_name="OrderId")
    from_status = UnicodeAttribute(null=True, attr_name="FromStatus")
    to_status = UnicodeAttribute(null=True, attr_name="ToStatus")
    order_version = NumberAttribute(null=True, attr_name="OrderVersion")
    product_id = UnicodeAttribute(null=True, attr_name="ProductId")
    detail = UnicodeAttribute(null=True, attr_name="Detail")
    entity_kind = UnicodeAttribute(null=True, attr_name="EntityKind")
    entity_id = UnicodeAttribute(null=True, attr_name="EntityId")
    warehouse_id = UnicodeAttribute(null=True, attr_name="WarehouseId")
    reason = UnicodeAttribute(null=True, attr_name="Reason")
    changes = ListAttribute(of=AttributeChange, null=True, attr_name="Changes")


class Note(ShopItem, discriminator="note"):
    """A staff note in the partition it is about, SK ``n#<at>#<id>``. Never changed: an edit is a new note whose
    ``Original`` names the first version's id (``shop.notes``)."""

    text = UnicodeAttribute(attr_name="Text")
    user = UnicodeAttribute(attr_name="User")
    at = UnicodeAttribute(attr_name="At")
    original = UnicodeAttribute(null=True, attr_name="Original")


class Notification(ShopItem, discriminator="notification"):
    """PK o#<oid>, SK ``notify#<at>#<id>``: a message to the order's customer, written in the transaction of the
    action it tells of; in Outbox-index until ``Sent`` or ``GivenUp`` (``shop.notifications``)."""

    kind = UnicodeAttribute(attr_name="Kind")
    at = TimestampAttribute(attr_name="At")
    detail = UnicodeAttribute(null=True, attr_name="Detail")
    outbox = UnicodeAttribute(null=True, attr_name="Outbox")
    next_attempt = UnicodeAttribute(null=True, attr_name="NextAttempt")
    claim = UnicodeAttribute(null=True, attr_name="Claim")  # the sender holding it now
    attempts = NumberAttribute(null=True, attr_name="Attempts")
    sent = TimestampAttribute(null=True, attr_name="Sent")
    given_up = TimestampAttribute(null=True, attr_name="GivenUp")
    error = UnicodeAttribute(null=True, attr_name="Error")
    order_id = IdIn[str]("pk")

    @property
    def notification_id(self) -> str:
        return self.sk.rpartition("#")[2]


class EmailClaim(ShopItem, discriminator="emailClaim"):
    """PK = SK = ``email#<lower-cased email>``: the customer holding that address, written in the transaction of
    the customer's ``Email`` so two customers cannot hold one (older customers: ``backfill email-claims``)."""

    customer_id = UnicodeAttribute(attr_name="CustomerId")


SHOP_TABLE = TableSpec(model=ShopItem, stream_view_type="NEW_AND_OLD_IMAGES")
