"""The returns service's table as a source of the admin view: a return (``r#<rid>``) is anchored on itself, an
order's refunds (``o#<oid>``, ``f#<fid>`` items) together beside the order's anchor.

Another service may write these items with plain PutItem/UpdateItem (``docs/returns.md``): a missing or malformed
attribute is simply missing in the view (a return without ``Status`` is in no list, an amount that is not a number
refunds nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from adminview.core import numbers, schema, values
from adminview.core.anchor import Implied
from adminview.core.sources.shared import Anchored, AnchoredSource, AnchorKind, Copied, IndexLookup, OrderPartitions
from adminview.core.values import Item
from returns import keys as return_keys
from returns.keys import ReturnStatus
from shop import keys

RETURN_FACTS = schema.RETURN_KIND.names[1:]  # all but ``ReturnId``, which the return's key holds
REFUND_FACTS = ("Amount", "Date", "Reference", "ReturnId", schema.CUSTOMER_ID)
ONE = Decimal(1)


@dataclass
class ReturnState(Copied):
    stub_kind: str = schema.RETURN
    PREFIX, NAMES = return_keys.RETURN, RETURN_FACTS

    def implied(self, list_shards: int) -> Implied:
        if self.facts is None:
            return Implied(self.key, None, {}, {})
        found = schema.RETURN_KIND.read(self.facts)
        status, requested = values.string(self.facts, schema.STATUS), found.requested
        anchor = {**schema.RETURN_KIND.item(self.key, return_id=self.id), **self.facts}
        if status in set(ReturnStatus):
            index, shard = schema.ORDERS_BY_STATUS, schema.shard_of(self.id, list_shards)
            anchor[index.hash_key] = schema.return_status_partition(str(status), shard)
            anchor[index.range_key] = schema.return_position(requested, self.id)
        entries: dict[schema.Key, Item] = {}
        customer, order = values.string(self.facts, schema.CUSTOMER_ID), values.string(self.facts, schema.ORDER_ID)
        if customer:
            key = schema.customer_return(customer, requested, self.id)
            entries[key] = schema.CUSTOMER_RETURN_KIND.item(
                key, return_id=self.id, order_id=order, status=status, requested=requested
            )
        return Implied(self.key, anchor, entries, self.sums())

    def sums(self) -> numbers.Sums:
        """Each line's units received back, restocked and damaged, to its product's month requested."""
        assert self.facts is not None
        month = (numbers.day_of(values.string(self.facts, "Requested")) or "")[:7]
        if not month:
            return {}
        adding, shard, whole = numbers.Adding(), schema.sum_shard(self.key), received_whole(self.facts)
        for line in values.listing(self.facts, "Lines"):
            facts = values.entries(line)
            product = values.string(facts, "ProductId")
            if not product:
                continue
            received, restocked = line_receipt(facts, whole)
            key = schema.returned_units(product, shard, month)
            adding.add(key, schema.UNITS, received)
            adding.add(key, schema.RESTOCKED, restocked)
            adding.add(key, schema.DAMAGED, received - restocked)
        return adding.sums


def received_whole(facts: Item) -> bool:
    """Whether a line without ``Received`` came back whole: a received return written before lines had
    ``Received``. A return refunded with a ``Refunded`` time and no ``Received`` one was never received (the
    customer kept the goods)."""
    status = values.string(facts, schema.STATUS)
    if status == ReturnStatus.REFUNDED:
        return "Received" in facts or "Refunded" not in facts
    return status == ReturnStatus.RECEIVED


def line_receipt(line: Item, whole: bool) -> tuple[Decimal, Decimal]:
    """A line's units received and restocked: its ``Received`` and ``Restocked`` (absent: all of what came back),
    or, without ``Received``, all of its quantity when ``whole`` and nothing otherwise; each kept within
    ``Restocked`` ≤ ``Received`` ≤ ``Quantity``."""

    def within(name: str, most: Decimal, absent: Decimal) -> Decimal:
        given = values.text(line, name)
        return absent if given is None else min(max(numbers.decimal_of(given), Decimal(0)), most)

    quantity = max(numbers.decimal_of(values.text(line, "Quantity")), Decimal(0))
    received = within("Received", quantity, quantity if whole else Decimal(0))
    return received, within("Restocked", received, received)


@dataclass
class RefundsState(Anchored):
    """An order's refunds, by their sort key in the returns table."""

    refunds: dict[str, Item] = field(default_factory=dict)
    stub_kind: str = schema.REFUNDS
    PREFIX = keys.ORDER

    def load(self, item: Item) -> None:
        self.refunds = {sk: values.entries(v) for sk, v in values.mapping(item, "Refunds").items()}

    def apply(self, sk: str, image: Item | None) -> None:
        if image is None:
            self.refunds.pop(sk, None)
        else:
            self.refunds[sk] = {n: image[n] for n in REFUND_FACTS if n in image}

    def source_keys(self) -> list[str]:
        return sorted(self.refunds)

    def implied(self, list_shards: int) -> Implied:
        if not self.refunds:
            return Implied(self.key, None, {}, {})
        refunds = {sk: dict(facts) for sk, facts in sorted(self.refunds.items())}
        anchor = schema.REFUNDS_KIND.item(self.key, order_id=self.id, refunds=refunds)
        return Implied(self.key, anchor, {}, self.sums())

    def sums(self) -> numbers.Sums:
        """Each refund: one refund and its amount on the UTC day of its ``Date``; the amount also counts as paid
        back for returned goods when the refund is a return's (a cancelled order's refund is not: its revenue
        was never counted), and as refunded to the customer it names (``CustomerId``), dated or not."""
        adding, shard = numbers.Adding(), schema.sum_shard(self.key)
        for facts in self.refunds.values():
            amount = numbers.decimal_of(values.text(facts, "Amount"))
            customer = values.string(facts, schema.CUSTOMER_ID)
            if customer and customer.strip():
                adding.add(schema.customer_refunded(customer.strip()), schema.REFUNDED, amount)
            day = numbers.day_of(values.string(facts, "Date"))
            if day is None:
                continue
            adding.add(schema.refunds_day(shard, day), schema.REFUNDS_COUNT, ONE)
            adding.add(schema.refunds_day(shard, day), schema.REFUNDED, amount)
            if values.string(facts, "ReturnId"):
                adding.add(schema.refunds_day(shard, day), schema.RETURNS_REFUNDED, amount)
        return adding.sums


class ReturnsSource(AnchoredSource):
    name = "returns"
    table_name = staticmethod(return_keys.table_name)
    ANCHORS = (
        AnchorKind(return_keys.RETURN, schema.RETURN_SK, ReturnState, (return_keys.RETURN_ENTITY,)),
        AnchorKind(keys.ORDER, schema.REFUNDS_SK, RefundsState, (return_keys.REFUND_ENTITY,), return_keys.REFUND),
    )

    def order_partitions(self, order_id: str) -> OrderPartitions:
        """The order's refunds (``o#<oid>``) and each of its returns (``r#<rid>``), which GSI1 names."""
        pk = return_keys.order(order_id)
        by_order = IndexLookup(
            return_keys.GSI1, return_keys.GSI1_PK, pk, lambda found: bool(return_keys.return_id_of(found))
        )
        return OrderPartitions((pk,), by_order)

    def entry_anchor(self, item: Item) -> schema.Key | None:
        return_id = values.string(item, "ReturnId")
        if values.string(item, schema.KIND) == schema.CUSTOMER_RETURN and return_id:
            return schema.return_anchor(return_keys.RETURN + return_id)
        return None

    def counts(self, anchor: schema.Key) -> bool:
        return True


SOURCE = ReturnsSource()
