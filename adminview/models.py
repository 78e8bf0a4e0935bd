"""The admin view table: a denormalized projection of the shop table, fed only by its stream (or a rebuild).

Items (``Kind`` discriminator), keyed so that each admin page is one Query:

- ``profile``  PK ``c#<cid>`` SK ``#profile``: Name, Email (AV4, read with BatchGetItem). GSI5
  ``email#<lower-cased email>`` / ``c#<cid>`` finds a customer by email (sparse: only profiles with one).
- ``order``    PK ``o#<oid>`` SK ``#order``: the order summary. GSI4 ``c#<cid>`` / ``<date>#<oid>`` serves
  AV1 (a customer's orders, newest first). GSI1 ``<STATUS>#<shard>`` / ``<date>#<oid>`` serves the status
  lists (AV2 is its PENDING part) and is **sparse**: the two key attributes exist while the order is
  PENDING, SHIPPED or CANCELLED (DELIVERED, the terminal majority, is not indexed) and the partition follows
  the status; the partition value is **write-sharded** over ``ADMIN_VIEW_PENDING_SHARDS`` keys (stable hash
  of the order id) so no single key takes the whole order stream.
- ``activity`` PK ``o#<oid>`` SK ``AUDIT#<at>#<id>`` (the shop's audit entry's own key; ``c#<cid>``, ``p#<pid>``
  or ``w#<wid>`` for an entity edit) and two twins with SK ``AUDIT#<at>#<id>#user`` and ``...#kind``: one staff
  change. GSI6 (sparse: only these) ``ACTIVITY#<shard>`` / ``<at>#<id>`` lists every change newest first
  (write-sharded like GSI1), the user twin's ``USER#<username>`` / ``<at>#<id>`` one user's, the kind twin's
  ``KIND#<kind>#<shard>`` one kind's (order, customer, product, stock, warehouse, system); a day is a key
  condition on the sort key (``begins_with <YYYY-MM-DD>``).
- ``product`` PK ``p#<pid>`` SK ``#product``: the catalogue's row (ProductId, Name, Price, Category,
  Description). GSI8 ``CATALOGUE#<shard>`` / ``<pid>`` lists every product by id (write-sharded like GSI1),
  so the catalogue export reads an index, never a Scan of the shop table.
- ``buyer``    PK ``o#<oid>`` SK ``p#<pid>``: one relation per (product, customer, order). GSI2
  ``p#<pid>`` / ``c#<cid>#o#<oid>`` (AV3) is sparse: present only while the order is not CANCELLED.
- ``payment``  PK ``o#<oid>`` SK ``t#<iid>#<txid>``: GSI3 ``t#<txid>`` (AV5), KEYS_ONLY + OrderId.
- ``category`` PK ``o#<oid>`` SK ``cat#<category>``: an order's lines of one category (units, revenue) with the
  order's id, customer and date. GSI7 ``CAT#<category>#<shard>`` / ``<date>#<oid>`` lists a category's orders
  by date (sparse: only orders with a date), write-sharded like GSI1.
- ``collection`` PK ``o#<oid>`` SK ``#order``: an order's anchor before its order item arrived (or after it was
  removed): in no index. The summary and the profile are anchors too: they carry the stream sequence numbers
  applied for the shop items they describe, so replayed and stale records change nothing (see
  ``adminview.anchors`` and ``adminview.watermarks``).
- ``watermark`` PK ``seq#<shop PK>``: written by earlier versions (one per shop item); no longer written or
  read, and deleted by TTL (``ExpiresAt``). Verify and rebuild leave them out.

Index projections hold only what the pages show (read cost is per byte).
"""

from __future__ import annotations

import hashlib
import os

from pynamodb.attributes import DiscriminatorAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.indexes import GlobalSecondaryIndex, IncludeProjection, KeysOnlyProjection

from dynamo import conf
from dynamo.models import BaseMeta, InstrumentedModel
from dynamo.tables import TableSpec
from shop import keys

DEFAULT_PENDING_SHARDS = 4
PROFILE_SK = "#profile"
ORDER_SK = "#order"
PENDING_PREFIX = "PENDING#"
INDEXED_STATUSES = ("PENDING", "SHIPPED", "CANCELLED")  # status lists of GSI1; DELIVERED is not indexed
ACTIVITY_PREFIX = "ACTIVITY#"
USER_ACTIVITY_PREFIX = "USER#"
USER_TWIN_SUFFIX = "#user"
CATEGORY_SK_PREFIX = "cat#"
CATEGORY_INDEX_PREFIX = "CAT#"
CATEGORY_ATTRS = ["OrderId", "CustomerId", "Date", "Category", "Units", "Revenue"]
KIND_TWIN_SUFFIX = "#kind"
KIND_ACTIVITY_PREFIX = "KIND#"
ACTIVITY_KINDS = ("order", "customer", "product", "stock", "warehouse", "system")
STOCK_ACTION_PREFIX = "stock-"  # the actions of stock edits (shop.editing), audited in the product's partition
PRODUCT_SK = "#product"
CATALOGUE_PREFIX = "CATALOGUE#"
CATALOGUE_ATTRS = ["ProductId", "Name", "Price", "Category", "Description"]
ACTIVITY_ATTRS = [
    "OrderId",
    "Action",
    "User",
    "At",
    "FromStatus",
    "ToStatus",
    "OrderVersion",
    "RequestId",
    "ProductId",
    "Detail",
]
WATERMARK_PREFIX = "seq#"
EXPIRES_AT = "ExpiresAt"  # the TTL attribute of the view table (stub anchors) and of the sync table (heartbeats)
SUMMARY_ATTRS = ["OrderId", "CustomerId", "Date", "Status", "Total", "ItemCount"]
EMAIL_PREFIX = "email#"
MAX_KEY_BYTES = 2048  # DynamoDB's limit for a partition key value


def email_key(email: str) -> str | None:
    """The email index's key: exact address, case-insensitive; None for an empty or oversized one."""
    key = EMAIL_PREFIX + email.strip().lower()
    return key if email.strip() and len(key.encode()) <= MAX_KEY_BYTES else None


def pending_shards() -> int:
    """N write shards of the pending index: Django setting or env ``ADMIN_VIEW_PENDING_SHARDS`` (default 4).
    Changing N needs a rebuild (every pending order's shard moves)."""
    value: object = os.environ.get("ADMIN_VIEW_PENDING_SHARDS")
    if not value:
        try:
            from django.conf import settings

            value = getattr(settings, "ADMIN_VIEW_PENDING_SHARDS", None)
        except Exception:  # Django not configured (Lambda)
            value = None
    shards = int(str(value)) if value else DEFAULT_PENDING_SHARDS
    if not 1 <= shards <= 100:
        raise ValueError(f"ADMIN_VIEW_PENDING_SHARDS must be 1..100, got {shards}")
    return shards


def pending_shard(order_id: str, shards: int | None = None) -> int:
    """Stable across processes (unlike ``hash()``): first 8 bytes of SHA-256, mod N."""
    n = shards or pending_shards()
    return int.from_bytes(hashlib.sha256(order_id.encode()).digest()[:8], "big") % n


def pending_key(shard: int) -> str:
    return status_key("PENDING", shard)


def status_key(status: str, shard: int) -> str:
    """GSI1 partition of an order list: ``<STATUS>#<shard>``."""
    return f"{status}#{shard}"


def category_key(category: str, shard: int) -> str:
    """GSI7 partition of a category's orders: ``CAT#<category>#<shard>``."""
    return f"{CATEGORY_INDEX_PREFIX}{category}#{shard}"


def activity_key(shard: int) -> str:
    return f"{ACTIVITY_PREFIX}{shard}"


def user_activity_key(username: str) -> str:
    return USER_ACTIVITY_PREFIX + username


def kind_activity_key(kind: str, shard: int) -> str:
    return f"{KIND_ACTIVITY_PREFIX}{kind}#{shard}"


def activity_kind(pk: str, action: str | None) -> str:
    """What a staff change changed, from its audit entry's partition (which GSI6 projects) and action: an order,
    a customer, a product or its stock, a warehouse, or the system (a dead-letter replay)."""
    head = pk.split("#", 1)[0] + "#"
    if head == keys.PRODUCT:
        return "stock" if (action or "").startswith(STOCK_ACTION_PREFIX) else "product"
    return {keys.ORDER: "order", keys.CUSTOMER: "customer", keys.WAREHOUSE: "warehouse"}.get(head, "system")


def catalogue_key(shard: int) -> str:
    return f"{CATALOGUE_PREFIX}{shard}"


class PendingIndex(GlobalSecondaryIndex["ViewItem"]):
    """The status lists (AV2 = PENDING): sparse, write-sharded. Projects the row shown on the list pages."""

    class Meta:
        index_name = "GSI1"
        projection = IncludeProjection(SUMMARY_ATTRS)

    gsi1_pk = UnicodeAttribute(hash_key=True, attr_name="GSI1PK")
    gsi1_sk = UnicodeAttribute(range_key=True, attr_name="GSI1SK")


class BuyersIndex(GlobalSecondaryIndex["ViewItem"]):
    """AV3: sparse (not CANCELLED), partition by product, sorted by customer then order."""

    class Meta:
        index_name = "GSI2"
        projection = KeysOnlyProjection()

    gsi2_pk = UnicodeAttribute(hash_key=True, attr_name="GSI2PK")
    gsi2_sk = UnicodeAttribute(range_key=True, attr_name="GSI2SK")


class TransactionIndex(GlobalSecondaryIndex["ViewItem"]):
    """AV5: payment TransactionId -> order."""

    class Meta:
        index_name = "GSI3"
        projection = IncludeProjection(["OrderId"])

    gsi3_pk = UnicodeAttribute(hash_key=True, attr_name="GSI3PK")
    gsi3_sk = UnicodeAttribute(range_key=True, attr_name="GSI3SK")


class CustomerOrdersIndex(GlobalSecondaryIndex["ViewItem"]):
    """AV1: a customer's orders by date."""

    class Meta:
        index_name = "GSI4"
        projection = IncludeProjection(SUMMARY_ATTRS)

    gsi4_pk = UnicodeAttribute(hash_key=True, attr_name="GSI4PK")
    gsi4_sk = UnicodeAttribute(range_key=True, attr_name="GSI4SK")


class EmailIndex(GlobalSecondaryIndex["ViewItem"]):
    """A customer by email (jump box): sparse, only profiles with an email; keys are all it needs."""

    class Meta:
        index_name = "GSI5"
        projection = KeysOnlyProjection()

    gsi5_pk = UnicodeAttribute(hash_key=True, attr_name="GSI5PK")
    gsi5_sk = UnicodeAttribute(range_key=True, attr_name="GSI5SK")


class ActivityIndex(GlobalSecondaryIndex["ViewItem"]):
    """Staff changes newest first: all (sharded ``ACTIVITY#<n>``) or one user's (``USER#<name>``)."""

    class Meta:
        index_name = "GSI6"
        projection = IncludeProjection(ACTIVITY_ATTRS)

    gsi6_pk = UnicodeAttribute(hash_key=True, attr_name="GSI6PK")
    gsi6_sk = UnicodeAttribute(range_key=True, attr_name="GSI6SK")


class CategoryIndex(GlobalSecondaryIndex["ViewItem"]):
    """A category's orders by date: sparse, write-sharded. Projects the row the category page shows."""

    class Meta:
        index_name = "GSI7"
        projection = IncludeProjection(CATEGORY_ATTRS)

    gsi7_pk = UnicodeAttribute(hash_key=True, attr_name="GSI7PK")
    gsi7_sk = UnicodeAttribute(range_key=True, attr_name="GSI7SK")


class CatalogueIndex(GlobalSecondaryIndex["ViewItem"]):
    """Every product by id (sparse: only catalogue rows), write-sharded ``CATALOGUE#<n>``; projects the row."""

    class Meta:
        index_name = "GSI8"
        projection = IncludeProjection(CATALOGUE_ATTRS)

    gsi8_pk = UnicodeAttribute(hash_key=True, attr_name="GSI8PK")
    gsi8_sk = UnicodeAttribute(range_key=True, attr_name="GSI8SK")


class ViewItem(InstrumentedModel):
    class Meta(BaseMeta):
        table_name = conf.admin_view_table_name()

    pk = UnicodeAttribute(hash_key=True, attr_name="PK")
    sk = UnicodeAttribute(range_key=True, attr_name="SK")
    kind = DiscriminatorAttribute(attr_name="Kind")
    gsi1_pk = UnicodeAttribute(null=True, attr_name="GSI1PK")
    gsi1_sk = UnicodeAttribute(null=True, attr_name="GSI1SK")
    gsi2_pk = UnicodeAttribute(null=True, attr_name="GSI2PK")
    gsi2_sk = UnicodeAttribute(null=True, attr_name="GSI2SK")
    gsi3_pk = UnicodeAttribute(null=True, attr_name="GSI3PK")
    gsi3_sk = UnicodeAttribute(null=True, attr_name="GSI3SK")
    gsi4_pk = UnicodeAttribute(null=True, attr_name="GSI4PK")
    gsi4_sk = UnicodeAttribute(null=True, attr_name="GSI4SK")
    gsi5_pk = UnicodeAttribute(null=True, attr_name="GSI5PK")
    gsi5_sk = UnicodeAttribute(null=True, attr_name="GSI5SK")
    gsi6_pk = UnicodeAttribute(null=True, attr_name="GSI6PK")
    gsi6_sk = UnicodeAttribute(null=True, attr_name="GSI6SK")
    gsi7_pk = UnicodeAttribute(null=True, attr_name="GSI7PK")
    gsi7_sk = UnicodeAttribute(null=True, attr_name="GSI7SK")
    gsi8_pk = UnicodeAttribute(null=True, attr_name="GSI8PK")
    gsi8_sk = UnicodeAttribute(null=True, attr_name="GSI8SK")

    pending = PendingIndex()
    buyers = BuyersIndex()
    transactions = TransactionIndex()
    customer_orders = CustomerOrdersIndex()
    emails = EmailIndex()
    activity = ActivityIndex()
    categories = CategoryIndex()
    catalogue = CatalogueIndex()


class Profile(ViewItem, discriminator="profile"):
    name = UnicodeAttribute(null=True, attr_name="Name")
    email = UnicodeAttribute(null=True, attr_name="Email")


class OrderSummary(ViewItem, discriminator="order"):
    order_id = UnicodeAttribute(attr_name="OrderId")
    customer_id = UnicodeAttribute(attr_name="CustomerId")
    date = UnicodeAttribute(null=True, attr_name="Date")
    status = UnicodeAttribute(null=True, attr_name="Status")
    total = UnicodeAttribute(null=True, attr_name="Total")
    item_count = NumberAttribute(null=True, attr_name="ItemCount")
    version = NumberAttribute(null=True, attr_name="Version")


class Buyer(ViewItem, discriminator="buyer"):
    order_id = UnicodeAttribute(attr_name="OrderId")
    customer_id = UnicodeAttribute(null=True, attr_name="CustomerId")
    product_id = UnicodeAttribute(attr_name="ProductId")


class PaymentRef(ViewItem, discriminator="payment"):
    order_id = UnicodeAttribute(attr_name="OrderId")
    transaction_id = UnicodeAttribute(attr_name="TransactionId")


class Activity(ViewItem, discriminator="activity"):
    order_id = UnicodeAttribute(null=True, attr_name="OrderId")
    action = UnicodeAttribute(attr_name="Action")
    user = UnicodeAttribute(attr_name="User")
    at = UnicodeAttribute(attr_name="At")


class OrderCategory(ViewItem, discriminator="category"):
    """An order's lines of one category (``adminview.projection.category_items``)."""


class OrderCollection(ViewItem, discriminator="collection"):
    """An order's anchor while the order item itself is not there (``adminview.anchors``)."""


class CatalogueEntry(ViewItem, discriminator="product"):
    product_id = UnicodeAttribute(attr_name="ProductId")
    name = UnicodeAttribute(null=True, attr_name="Name")
    price = UnicodeAttribute(null=True, attr_name="Price")
    category = UnicodeAttribute(null=True, attr_name="Category")
    description = UnicodeAttribute(null=True, attr_name="Description")


class Watermark(ViewItem, discriminator="watermark"):
    """Written by earlier versions; read only so that such items in an older view do not break a query."""

    seq = UnicodeAttribute(null=True, attr_name="Seq")
    rev = NumberAttribute(null=True, attr_name="Rev")
    expires_at = NumberAttribute(null=True, attr_name=EXPIRES_AT)


ADMIN_VIEW_TABLE = TableSpec(model=ViewItem, ttl_attribute=EXPIRES_AT)


class SyncItem(InstrumentedModel):
    """Poller bookkeeping (its own small table): per-shard checkpoints and dead letters.

    - PK ``checkpoint#<stream arn>`` SK ``<shard id>``: Seq (last record applied or dead-lettered), Done.
    - PK ``deadletter`` SK ``<seq>#<event id>``: Record (JSON), Error, Attempts, At.
    """

    class Meta(BaseMeta):
        table_name = os.environ.get("ADMIN_VIEW_SYNC_TABLE_NAME") or "AdminViewSync"

    pk = UnicodeAttribute(hash_key=True, attr_name="PK")
    sk = UnicodeAttribute(range_key=True, attr_name="SK")
    seq = UnicodeAttribute(null=True, attr_name="Seq")
    done = NumberAttribute(null=True, attr_name="Done")
    record = UnicodeAttribute(null=True, attr_name="Record")
    error = UnicodeAttribute(null=True, attr_name="Error")
    attempts = NumberAttribute(null=True, attr_name="Attempts")
    at = UnicodeAttribute(null=True, attr_name="At")


SYNC_TABLE = TableSpec(model=SyncItem, ttl_attribute=EXPIRES_AT)
