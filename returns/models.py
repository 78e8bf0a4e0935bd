"""The returns table as PynamoDB models: one base (keys, ``GSI1``, the ``EntityType`` discriminator), one class per
entity. The shapes are a contract other services write with plain PutItem/UpdateItem (docs/returns.md, "The shapes
other services write"): discriminator values and attribute names are stored data, never renamed.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from pynamodb.attributes import Attribute, DiscriminatorAttribute, ListAttribute, UnicodeAttribute
from pynamodb.constants import STRING
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex

from dynamo.models import BaseMeta, InstrumentedModel
from dynamo.tables import TableSpec
from returns import keys
from returns.keys import ReturnStatus
from returns.lifecycle import RETURN
from shop import keys as shop_keys
from shop.attributes import DecimalNumberAttribute, IntStringAttribute, Map, TimestampAttribute, to_decimal

CENT = Decimal("0.01")


class AmountAttribute(Attribute[Decimal]):
    """Money as a decimal string with two decimals (``"12.50"``), as the contract has a refund's ``Amount``."""

    attr_type = STRING

    def serialize(self, value: Decimal) -> str:
        return format(to_decimal(value, what=self.attr_name).quantize(CENT), "f")

    def deserialize(self, value: str) -> Decimal:
        return to_decimal(value, what=self.attr_name)


class GSI1(GlobalSecondaryIndex["ReturnsItem"]):
    """An order's returns: ``o#<oid>`` / ``r#<rid>``."""

    class Meta:
        index_name = keys.GSI1
        projection = AllProjection()

    gsi1_pk = UnicodeAttribute(hash_key=True, attr_name=keys.GSI1_PK)
    gsi1_sk = UnicodeAttribute(range_key=True, attr_name=keys.GSI1_SK)


class ReturnsItem(InstrumentedModel):
    class Meta(BaseMeta):
        table_name = keys.table_name()
        stream_view_type = "NEW_AND_OLD_IMAGES"

    pk = UnicodeAttribute(hash_key=True, attr_name="PK")
    sk = UnicodeAttribute(range_key=True, attr_name="SK")
    entity_type = DiscriminatorAttribute(attr_name="EntityType")
    gsi1_pk = UnicodeAttribute(null=True, attr_name=keys.GSI1_PK)
    gsi1_sk = UnicodeAttribute(null=True, attr_name=keys.GSI1_SK)

    gsi1 = GSI1()


class ReturnLine(Map[str, object]):
    """One product sent back (its counts once received: docs/returns.md, "The shapes other services write")."""

    product_id = UnicodeAttribute(attr_name="ProductId")
    quantity = IntStringAttribute(attr_name="Quantity")
    reason = UnicodeAttribute(attr_name="Reason")
    reason_text = UnicodeAttribute(null=True, attr_name="ReasonText")  # the words of an OTHER reason
    received = IntStringAttribute(null=True, attr_name="Received")
    restocked = IntStringAttribute(null=True, attr_name="Restocked")
    warehouse_id = UnicodeAttribute(null=True, attr_name="WarehouseId")  # ours: where it went back in stock

    @property
    def reason_words(self) -> str:
        return keys.reason_words(self.reason, self.reason_text)

    @property
    def damaged(self) -> int | None:
        """Units received but not put back in stock."""
        return self.received - (self.restocked or 0) if self.received is not None else None


class ReturnItem(ReturnsItem, discriminator=keys.RETURN_ENTITY):
    """``Status`` moves as ``returns.lifecycle.RETURN`` says."""

    order_id = UnicodeAttribute(attr_name="OrderId")
    customer_id = UnicodeAttribute(attr_name="CustomerId")
    status = UnicodeAttribute(attr_name="Status")
    requested = TimestampAttribute(attr_name="Requested")
    lines = ListAttribute(of=ReturnLine, attr_name="Lines")
    reason = UnicodeAttribute(null=True, attr_name="Reason")  # ours: why staff rejected it
    warehouse_id = UnicodeAttribute(null=True, attr_name="WarehouseId")  # ours: where it was received
    refund_id = UnicodeAttribute(null=True, attr_name="RefundId")  # ours: the refund that closed it
    # ours: when each step happened (a return another service wrote, or one older than these, lacks them)
    approved = TimestampAttribute(null=True, attr_name="Approved")
    rejected = TimestampAttribute(null=True, attr_name="Rejected")
    received = TimestampAttribute(null=True, attr_name="Received")
    refunded = TimestampAttribute(null=True, attr_name="Refunded")

    @property
    def return_id(self) -> str:
        return keys.return_id_of(self.pk) or ""

    @property
    def return_status(self) -> ReturnStatus | None:
        try:
            return ReturnStatus(self.status) if self.status else None
        except ValueError:
            return None

    @property
    def units(self) -> int:
        return sum(line.quantity or 0 for line in self.lines or [])

    @property
    def closed(self) -> datetime | None:
        """When a closed return closed (None while open, or when its step's time was not kept)."""
        stamp = RETURN.closed_at().get(self.status or "")
        return getattr(self, stamp) if stamp else None


class Refund(ReturnsItem, discriminator=keys.REFUND_ENTITY):
    """Money paid back to the customer. ``CustomerId`` is optional in the contract; ours always carry it, so the
    view can add the refund to its customer's total (docs/returns.md, "The shapes other services write")."""

    amount = AmountAttribute(attr_name="Amount")
    date = TimestampAttribute(attr_name="Date")
    reference = UnicodeAttribute(attr_name="Reference")
    return_id = UnicodeAttribute(null=True, attr_name="ReturnId")
    customer_id = UnicodeAttribute(null=True, attr_name="CustomerId")
    override = UnicodeAttribute(null=True, attr_name="Override")  # ours: why it may exceed what came back

    @property
    def order_id(self) -> str:
        return self.pk[len(shop_keys.ORDER) :]

    @property
    def refund_id(self) -> str:
        return keys.refund_id_of(self.sk) or ""


class OrderRefunds(ReturnsItem, discriminator="orderRefunds"):
    """The sum of the order's refunds made by this service, a number (so a condition can compare it), kept within
    what the order paid by each refund's own transaction (``returns.refunds``)."""

    refunded = DecimalNumberAttribute(attr_name="Refunded")


class ReturnNote(ReturnsItem, discriminator=keys.NOTE_ENTITY):
    """A staff note on a return (``returns.notes``), never changed once written: an edit is a new note whose
    ``Original`` names the first version's id."""

    text = UnicodeAttribute(attr_name="Text")
    user = UnicodeAttribute(attr_name="User")
    at = UnicodeAttribute(attr_name="At")
    original = UnicodeAttribute(null=True, attr_name="Original")


RETURNS_TABLE = TableSpec(model=ReturnsItem, stream_view_type="NEW_AND_OLD_IMAGES")
