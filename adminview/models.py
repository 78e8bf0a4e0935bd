"""The admin view's tables as PynamoDB models: what ``create_tables`` creates (the view's indexes as
``adminview.schema`` declares them), and typed reads of a summary or a profile.

The sync and every page read and write the view as DynamoDB JSON built by ``adminview.schema``'s functions (a
model per item would cost the sync more than the rest of its work); the models below read the same items back.
"""

from __future__ import annotations

import os

from pynamodb.attributes import DiscriminatorAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.indexes import GlobalSecondaryIndex, IncludeProjection

from adminview import schema
from adminview.anchor import EXPIRES_AT
from dynamo import conf
from dynamo.models import BaseMeta, InstrumentedModel
from dynamo.tables import TableSpec
from shop.models import Address


class OrdersByStatusIndex(GlobalSecondaryIndex["ViewItem"]):
    class Meta:
        index_name = schema.ORDERS_BY_STATUS.name
        projection = IncludeProjection(list(schema.ORDERS_BY_STATUS.projected))

    hash_key = UnicodeAttribute(hash_key=True, attr_name=schema.ORDERS_BY_STATUS.hash_key)
    range_key = UnicodeAttribute(range_key=True, attr_name=schema.ORDERS_BY_STATUS.range_key)


class CatalogueIndex(GlobalSecondaryIndex["ViewItem"]):
    class Meta:
        index_name = schema.CATALOGUE.name
        projection = IncludeProjection(list(schema.CATALOGUE.projected))

    hash_key = UnicodeAttribute(hash_key=True, attr_name=schema.CATALOGUE.hash_key)
    range_key = UnicodeAttribute(range_key=True, attr_name=schema.CATALOGUE.range_key)


class ViewItem(InstrumentedModel):
    class Meta(BaseMeta):
        table_name = conf.admin_view_table_name()

    pk = UnicodeAttribute(hash_key=True, attr_name=schema.PK)
    sk = UnicodeAttribute(range_key=True, attr_name=schema.SK)
    kind = DiscriminatorAttribute(attr_name=schema.KIND)
    gsi1_pk = UnicodeAttribute(null=True, attr_name=schema.ORDERS_BY_STATUS.hash_key)
    gsi1_sk = UnicodeAttribute(null=True, attr_name=schema.ORDERS_BY_STATUS.range_key)
    gsi8_pk = UnicodeAttribute(null=True, attr_name=schema.CATALOGUE.hash_key)
    gsi8_sk = UnicodeAttribute(null=True, attr_name=schema.CATALOGUE.range_key)

    orders_by_status = OrdersByStatusIndex()
    catalogue = CatalogueIndex()


class OrderSummary(ViewItem, discriminator=schema.ORDER):
    order_id = UnicodeAttribute(attr_name="OrderId")
    customer_id = UnicodeAttribute(attr_name="CustomerId")
    date = UnicodeAttribute(null=True, attr_name="Date")
    status = UnicodeAttribute(null=True, attr_name="Status")
    total = UnicodeAttribute(null=True, attr_name="Total")
    item_count = NumberAttribute(null=True, attr_name="ItemCount")
    version = NumberAttribute(null=True, attr_name="Version")
    carrier = UnicodeAttribute(null=True, attr_name="Carrier")
    tracking_number = UnicodeAttribute(null=True, attr_name="TrackingNumber")


class OrderCollection(ViewItem, discriminator=schema.COLLECTION):
    """An order's anchor while its order item is not there."""


class Profile(ViewItem, discriminator=schema.PROFILE):
    name = UnicodeAttribute(null=True, attr_name="Name")
    email = UnicodeAttribute(null=True, attr_name="Email")
    address = Address(null=True, attr_name="Address")


class CatalogueRow(ViewItem, discriminator=schema.PRODUCT):
    product_id = UnicodeAttribute(attr_name="ProductId")
    name = UnicodeAttribute(null=True, attr_name="Name")
    price = UnicodeAttribute(null=True, attr_name="Price")
    category = UnicodeAttribute(null=True, attr_name="Category")
    description = UnicodeAttribute(null=True, attr_name="Description")


ADMIN_VIEW_TABLE = TableSpec(model=ViewItem, ttl_attribute=EXPIRES_AT)


class SyncItem(InstrumentedModel):
    """The sync's bookkeeping (its own small table): per-shard checkpoints, dead letters, heartbeats.

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
