"""The numbers the back office opens on, kept by the sync: what one order contributes, and the counters it adds to.

An order contributes, from its anchor's facts (``adminview.anchors``):

- one to the count of orders in its status (``PENDING``, ``SHIPPED``, ``DELIVERED`` or ``CANCELLED``; an unknown
  status counts nowhere);
- on the UTC day of its ``Date``: one order, one cancelled order if it is cancelled now, and, unless it is
  cancelled, the units (``Quantity``) and revenue (``Price`` x ``Quantity``) of its lines, in all and per category
  (the line's own ``Category``, ``uncategorized`` when it has none);
- unless it is cancelled, the units and revenue of each line to the line's product, in the order's month.

The counters are write-sharded like the pending index: an order adds to the counters of shard
``hash(order id) mod N`` (``ADMIN_VIEW_STATS_SHARDS``), and a read sums the N shards. Each counter is one item:

- ``STATS#status#<shard>`` / ``counts``: one number per status;
- ``STATS#day#<shard>`` / ``<YYYY-MM-DD>``: ``Orders``, ``Cancelled``, ``Units``, ``Revenue``, and per category
  ``Units:<category>``, ``Revenue:<category>``;
- ``STATS#product#<pid>#<shard>`` / ``<YYYY-MM>``: ``Units``, ``Revenue``.

Exactly once, whatever the delivery: beside each order's anchor, an item ``o#<oid>`` / ``#counted`` keeps, in
``Counted``, the contribution already added to the counters. Every anchor write whose facts change the
contribution (the sync's, a rebuild's) writes the new one there and adds the difference to the counters, in the
same TransactWriteItems, conditioned on the anchor's ``Rev``. A replayed or repeated record leaves the facts,
hence the contribution, as they were: nothing is added. A crash between the view items' write and that
transaction leaves the anchor unwritten, so the records are applied again. The contribution is a function of the
whole collection, so the order in which an order's records arrive does not matter. It is kept apart from the
anchor so that a damaged anchor (one a rebuild has to restore from the shop) does not lose what was counted.

Nothing here does I/O.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from adminview.projection import UNCATEGORIZED, Image, category_name, decimal_of
from dynamo import ddb_json
from shop import keys

STATUSES = ("PENDING", "SHIPPED", "DELIVERED", "CANCELLED")
CANCELLED = "CANCELLED"
COUNTED = "Counted"
COUNTED_SK = "#counted"
COUNTED_KIND = "counted"
COUNTER_PREFIX = "STATS#"
STATUS_PREFIX, DAY_PREFIX, PRODUCT_PREFIX = "STATS#status#", "STATS#day#", "STATS#product#"
CHANGED_AT = "At"
STATUS_SK = "counts"
ORDERS, CANCELLED_ORDERS, UNITS, REVENUE = "Orders", "Cancelled", "Units", "Revenue"
CATEGORY_SEP = ":"
DEFAULT_SHARDS = 4

CounterKey = tuple[str, str]
Deltas = dict[CounterKey, dict[str, Decimal]]


def stats_shards() -> int:
    """N write shards of the counters: env ``ADMIN_VIEW_STATS_SHARDS`` (default 4). Changing N needs a rebuild."""
    value = os.environ.get("ADMIN_VIEW_STATS_SHARDS")
    shards = int(value) if value else DEFAULT_SHARDS
    if not 1 <= shards <= 100:
        raise ValueError(f"ADMIN_VIEW_STATS_SHARDS must be 1..100, got {shards}")
    return shards


def shard_of(order_id: str, shards: int) -> int:
    """Stable across processes: first 8 bytes of SHA-256 of the order id, mod N."""
    return int.from_bytes(hashlib.sha256(order_id.encode()).digest()[:8], "big") % shards


def status_key(shard: int) -> CounterKey:
    return f"{STATUS_PREFIX}{shard}", STATUS_SK


def day_key(shard: int, day: str) -> CounterKey:
    return f"{DAY_PREFIX}{shard}", day


def product_key(product_id: str, shard: int, month: str) -> CounterKey:
    return f"{PRODUCT_PREFIX}{product_id}#{shard}", month


@dataclass(frozen=True)
class Line:
    product_id: str
    category: str
    units: Decimal
    revenue: Decimal


@dataclass(frozen=True)
class Contribution:
    """What one order adds to the counters."""

    order_id: str
    status: str | None = None  # one of STATUSES, else None
    day: str | None = None  # YYYY-MM-DD
    lines: tuple[Line, ...] = ()

    @property
    def cancelled(self) -> bool:
        return self.status == CANCELLED

    def deltas(self, shards: int, sign: int = 1) -> Deltas:
        out: Deltas = {}
        shard = shard_of(self.order_id, shards)

        def add(key: CounterKey, name: str, value: Decimal) -> None:
            if value:
                bucket = out.setdefault(key, {})
                bucket[name] = bucket.get(name, Decimal(0)) + sign * value

        if self.status is not None:
            add(status_key(shard), self.status, Decimal(1))
        if self.day is None:
            return out
        day = day_key(shard, self.day)
        add(day, ORDERS, Decimal(1))
        if self.cancelled:
            add(day, CANCELLED_ORDERS, Decimal(1))
            return out
        for line in self.lines:
            add(day, UNITS, line.units)
            add(day, REVENUE, line.revenue)
            add(day, UNITS + CATEGORY_SEP + line.category, line.units)
            add(day, REVENUE + CATEGORY_SEP + line.category, line.revenue)
            add(product_key(line.product_id, shard, self.day[:7]), UNITS, line.units)
            add(product_key(line.product_id, shard, self.day[:7]), REVENUE, line.revenue)
        return out

    def to_value(self) -> dict[str, Any]:
        """As the anchor's ``Counted`` attribute (a map)."""
        value: Image = {}
        if self.status is not None:
            value["Status"] = ddb_json.s(self.status)
        if self.day is not None:
            value["Day"] = ddb_json.s(self.day)
        if self.lines:
            value["Lines"] = {
                "M": {
                    line.product_id: {
                        "M": {
                            "Category": ddb_json.s(line.category),
                            UNITS: ddb_json.n(line.units),
                            REVENUE: ddb_json.n(line.revenue),
                        }
                    }
                    for line in self.lines
                }
            }
        return {"M": value}


def counted_key(order_key: str) -> CounterKey:
    """Where an order's counted contribution is kept: ``o#<oid>`` / ``#counted``."""
    return order_key, COUNTED_SK


def counted_item(order_key: str, contribution: Contribution) -> dict[str, Any]:
    return {
        **ddb_json.key(*counted_key(order_key)),
        "Kind": ddb_json.s(COUNTED_KIND),
        COUNTED: contribution.to_value(),
    }


def is_counted(item: Mapping[str, Any]) -> bool:
    return ddb_json.string(item, "SK") == COUNTED_SK


def counted(order_id: str, item: Mapping[str, Any] | None) -> Contribution:
    """The contribution an order's ``#counted`` item says was already added to the counters (none: nothing)."""
    value = ddb_json.mapping(item, COUNTED)
    lines = tuple(
        Line(
            pid,
            ddb_json.string(facts, "Category") or UNCATEGORIZED,
            decimal_of(ddb_json.text(facts, UNITS)),
            decimal_of(ddb_json.text(facts, REVENUE)),
        )
        for pid, facts in sorted(
            (pid, ddb_json.entries(entry)) for pid, entry in ddb_json.mapping(value, "Lines").items()
        )
    )
    return Contribution(order_id, ddb_json.string(value, "Status"), ddb_json.string(value, "Day"), lines)


def contribution(order_id: str, sources: Mapping[str, Image]) -> Contribution:
    """What an order's collection contributes (``sources``: each shop item's facts by SK, as an anchor's state
    holds them). No order item: nothing. A line without a price adds units and no revenue."""
    orders = [image for image in sources.values() if ddb_json.string(image, "EntityType") == "order"]
    if not orders:
        return Contribution(order_id)
    order = orders[-1]
    status: str | None = ddb_json.text(order, "Status")
    day = _day(ddb_json.text(order, "Date"))
    lines: list[Line] = []
    for sk, image in sorted(sources.items()):
        product_id = keys.without_prefix(sk, keys.PRODUCT)
        if product_id is None or ddb_json.string(image, "EntityType") != "orderItem":
            continue
        units = decimal_of(ddb_json.text(image, "Quantity"))
        price = decimal_of(ddb_json.text(image, "Price"))
        lines.append(Line(product_id, category_name(ddb_json.text(image, "Category")), units, units * price))
    status = status if status in STATUSES else None
    if status == CANCELLED or day is None:  # its lines count nowhere: leave them out, so equal means equal deltas
        lines = []
    return Contribution(order_id, status, day, tuple(lines))


def difference(old: Contribution, new: Contribution, shards: int) -> Deltas:
    """The counter changes that turn ``old`` into ``new`` (zeros left out)."""
    total: Deltas = {}
    for part in (old.deltas(shards, sign=-1), new.deltas(shards)):
        for key, values in part.items():
            bucket = total.setdefault(key, {})
            for name, value in values.items():
                bucket[name] = bucket.get(name, Decimal(0)) + value
    return {key: kept for key, values in total.items() if (kept := {n: v for n, v in values.items() if v})}


def merge(parts: Iterable[Deltas]) -> Deltas:
    return add_into({}, parts)


def add_into(total: Deltas, parts: Iterable[Deltas]) -> Deltas:
    """``parts`` added to ``total`` in place (a running sum stays linear in what is added, however large it is)."""
    for part in parts:
        for key, values in part.items():
            bucket = total.setdefault(key, {})
            for name, value in values.items():
                bucket[name] = bucket.get(name, Decimal(0)) + value
    return total


def counter_update(
    table: str, key: CounterKey, values: Mapping[str, Decimal], now: float | None = None
) -> dict[str, Any]:
    """A TransactWriteItems ``Update`` that adds ``values`` to one counter item (ADD creates what is missing) and
    notes when (``At``: a verify leaves counters that changed while it ran for the next one)."""
    names = {f"#a{i}": name for i, name in enumerate(values)} | {"#at": CHANGED_AT}
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


def is_counter(item: Mapping[str, Any]) -> bool:
    return (ddb_json.string(item, "PK") or "").startswith(COUNTER_PREFIX)


def counter_values(item: Mapping[str, Any]) -> dict[str, Decimal]:
    """A counter item's figures (every attribute but its keys and ``At``)."""
    return {
        name: Decimal(text)
        for name in item
        if name not in ("PK", "SK", CHANGED_AT) and (text := ddb_json.text(item, name)) is not None
    }


def _day(text: str | None) -> str | None:
    """``YYYY-MM-DD`` of a ``YYYY-MM-DDTHH:MM:SS`` date (UTC by the shop's convention); None when malformed."""
    if not text or len(text) < 10:
        return None
    day = text[:10]
    if not (day[:4].isdigit() and day[4] == "-" and day[5:7].isdigit() and day[7] == "-" and day[8:10].isdigit()):
        return None
    return day
