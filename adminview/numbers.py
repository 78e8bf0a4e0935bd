"""The numbers the back office opens on: what one order contributes to the sums, and how a change of it moves them.

An order contributes (``contribution``), once its order item is known:

- one to the count of orders in its status (an unknown status counts nowhere);
- on the UTC day of its ``Date``: one order, one cancelled order if it is cancelled, and, unless it is cancelled,
  the units (``Quantity``) and revenue (``Price`` x ``Quantity``) of its lines, in all and per category;
- unless it is cancelled: the units and revenue of each line to the line's product in the order's month, and one
  order to the buyer relation of (the line's product, the order's customer).

Exactly once, whatever the delivery: each order's ``counted`` item (``schema.counted``) holds the contribution
last added, with a revision. Whoever changes the sums (the sync, a rebuild, a repair) writes the new contribution
there, conditioned on the revision it read, and adds the difference to the sums, in one TransactWriteItems. A
replayed record leaves the order's facts, so its contribution, as they were: nothing is added. The contribution
is a function of the order's whole collection, so the order in which its records arrive does not matter.

Sums are write-sharded by order id (``schema.sum_shards``) and a read adds up the shards; the buyer relations
are not (one item per product and customer takes few writes).

Nothing here does I/O.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from adminview import schema
from dynamo import ddb_json
from shop.models import OrderStatus

CANCELLED = OrderStatus.CANCELLED.value
STATUSES = tuple(s.value for s in OrderStatus)
COUNTED = "Counted"
REV = "Rev"

Deltas = dict[schema.Key, dict[str, Decimal]]


@dataclass(frozen=True)
class Line:
    product_id: str
    category: str
    units: Decimal
    revenue: Decimal


@dataclass(frozen=True)
class Contribution:
    """What one order adds to the sums (the empty one: nothing)."""

    order_id: str
    status: str | None = None  # one of STATUSES, else None
    day: str | None = None  # YYYY-MM-DD
    customer_id: str | None = None
    lines: tuple[Line, ...] = ()  # left out when cancelled, so equal contributions mean equal sums

    @property
    def cancelled(self) -> bool:
        return self.status == CANCELLED

    def deltas(self, shards: int, sign: int = 1) -> Deltas:
        out: Deltas = {}

        def add(key: schema.Key, name: str, value: Decimal) -> None:
            if value:
                bucket = out.setdefault(key, {})
                bucket[name] = bucket.get(name, Decimal(0)) + sign * value

        shard = schema.shard_of(self.order_id, shards)
        if self.status is not None:
            add(schema.status_counts(shard), self.status, Decimal(1))
        if self.day is not None:
            day = schema.day_sums(shard, self.day)
            add(day, schema.ORDERS, Decimal(1))
            if self.cancelled:
                add(day, schema.CANCELLED_ORDERS, Decimal(1))
        for line in self.lines:
            if self.day is not None:
                add(day, schema.UNITS, line.units)
                add(day, schema.REVENUE, line.revenue)
                add(day, schema.UNITS + schema.CATEGORY_SEP + line.category, line.units)
                add(day, schema.REVENUE + schema.CATEGORY_SEP + line.category, line.revenue)
                month = schema.product_month_sums(line.product_id, shard, self.day[:7])
                add(month, schema.UNITS, line.units)
                add(month, schema.REVENUE, line.revenue)
            if self.customer_id is not None:
                add(schema.buyers(line.product_id, self.customer_id), schema.ORDERS, Decimal(1))
        return out

    def to_value(self) -> dict[str, Any]:
        """As the ``counted`` item's ``Counted`` attribute (a map)."""
        value: dict[str, Any] = {}
        for name, text in (("Status", self.status), ("Day", self.day), ("CustomerId", self.customer_id)):
            if text is not None:
                value[name] = ddb_json.s(text)
        if self.lines:
            value["Lines"] = {
                "M": {
                    line.product_id: {
                        "M": {
                            "Category": ddb_json.s(line.category),
                            schema.UNITS: ddb_json.n(line.units),
                            schema.REVENUE: ddb_json.n(line.revenue),
                        }
                    }
                    for line in self.lines
                }
            }
        return {"M": value}


def decimal_of(text: str | None) -> Decimal:
    """A decimal attribute; 0 when absent or not a finite number (a line without a price sells for nothing)."""
    if not text:
        return Decimal(0)
    try:
        value = Decimal(text)
    except ArithmeticError:
        return Decimal(0)
    return value if value.is_finite() else Decimal(0)


def day_of(text: str | None) -> str | None:
    """``YYYY-MM-DD`` of a ``YYYY-MM-DDTHH:MM:SS`` date (UTC by the shop's convention); None when malformed."""
    if not text or len(text) < 10:
        return None
    day = text[:10]
    if not (day[:4].isdigit() and day[4] == "-" and day[5:7].isdigit() and day[7] == "-" and day[8:10].isdigit()):
        return None
    return day


# --- the counted item ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Counted:
    """An order's ``counted`` item as read: what was added, and its revision (None: no item)."""

    contribution: Contribution
    rev: int | None = None

    @property
    def exists(self) -> bool:
        return self.rev is not None


def read_counted(order_id: str, item: Mapping[str, Any] | None) -> Counted:
    if item is None:
        return Counted(Contribution(order_id))
    value = ddb_json.mapping(item, COUNTED)
    lines = tuple(
        Line(
            pid,
            ddb_json.string(facts, "Category") or schema.UNCATEGORIZED,
            decimal_of(ddb_json.text(facts, schema.UNITS)),
            decimal_of(ddb_json.text(facts, schema.REVENUE)),
        )
        for pid, facts in sorted((pid, ddb_json.entries(e)) for pid, e in ddb_json.mapping(value, "Lines").items())
    )
    contribution = Contribution(
        order_id,
        ddb_json.string(value, "Status"),
        ddb_json.string(value, "Day"),
        ddb_json.string(value, "CustomerId"),
        lines,
    )
    return Counted(contribution, ddb_json.integer(item, REV) or 0)


def counted_item(contribution: Contribution, rev: int) -> dict[str, Any]:
    return {
        **ddb_json.key(*schema.counted(contribution.order_id)),
        schema.KIND: ddb_json.s(schema.COUNTED),
        COUNTED: contribution.to_value(),
        REV: ddb_json.n(rev),
    }


def counted_write(table: str, before: Counted, after: Contribution) -> dict[str, Any]:
    """A TransactWriteItems action: the order's counted item becomes ``after``, where it is still ``before``
    (deleted when nothing is counted any more)."""
    key = schema.counted(after.order_id)
    if before.exists:
        condition: dict[str, Any] = {
            "ConditionExpression": "#rev = :rev",
            "ExpressionAttributeNames": {"#rev": REV},
            "ExpressionAttributeValues": {":rev": ddb_json.n(before.rev or 0)},
        }
    else:
        condition = {"ConditionExpression": "attribute_not_exists(#pk)", "ExpressionAttributeNames": {"#pk": "PK"}}
    if after == Contribution(after.order_id):
        return {"Delete": {"TableName": table, "Key": ddb_json.key(*key), **condition}}
    return {"Put": {"TableName": table, "Item": counted_item(after, (before.rev or 0) + 1), **condition}}


# --- moving the sums -----------------------------------------------------------------------------------------


def difference(old: Contribution, new: Contribution, shards: int) -> Deltas:
    """The changes of the sums that turn ``old`` into ``new`` (zeros left out)."""
    total = add_into({}, (old.deltas(shards, sign=-1), new.deltas(shards)))
    return {key: kept for key, values in total.items() if (kept := {n: v for n, v in values.items() if v})}


def add_into(total: Deltas, parts: Iterable[Deltas]) -> Deltas:
    """``parts`` added to ``total`` in place (a running sum stays linear in what is added, however large)."""
    for part in parts:
        for key, values in part.items():
            bucket = total.setdefault(key, {})
            for name, value in values.items():
                bucket[name] = bucket.get(name, Decimal(0)) + value
    return total


def sum_update(table: str, key: schema.Key, values: Mapping[str, Decimal], now: float | None = None) -> dict[str, Any]:
    """A TransactWriteItems action adding ``values`` to one sum item (ADD creates what is missing) and noting
    when (``At``: a verify leaves sums that changed while it ran for the next one)."""
    names = {f"#a{i}": name for i, name in enumerate(values)} | {"#at": schema.CHANGED_AT}
    value_map = {f":v{i}": ddb_json.n(v) for i, v in enumerate(values.values())}
    value_map[":at"] = ddb_json.n(round(time.time() if now is None else now, 3))
    return {
        "Update": {
            "TableName": table,
            "Key": ddb_json.key(*key),
            "UpdateExpression": "ADD " + ", ".join(f"#a{i} :v{i}" for i in range(len(values))) + " SET #at = :at",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": value_map,
        }
    }


def sum_values(item: Mapping[str, Any]) -> dict[str, Decimal]:
    """A sum item's figures (every number but ``At``)."""
    return {
        name: Decimal(text)
        for name, value in item.items()
        if name not in (schema.PK, schema.SK, schema.CHANGED_AT)
        and "N" in value
        and (text := ddb_json.text(item, name)) is not None
    }
