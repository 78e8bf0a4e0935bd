"""The numbers the back office opens on, kept exact: what an anchor adds to the sums, and how a change of it moves
them.

An anchor that adds to sums (an order: ``adminview.core.sources.shop``; a return, an order's refunds:
``adminview.core.sources.returns``) says what it adds as ``Sums``: sum item key -> attribute -> value, e.g. an order's
one to the count of its status, its units and revenue on its day and in each line's product's month, one order
to each (product, customer) buyer relation.

Exactly once, whatever the delivery: beside such an anchor, its *counted* item (``schema.counted``) holds the sums
last added, with a revision. Whoever changes the sums (the sync, a rebuild, a repair) writes the new sums there,
conditioned on the revision it read, and adds the difference to the sum items, in one TransactWriteItems. A
replayed record leaves the anchor's facts, so its sums, as they were: nothing is added. The sums are a function of
the anchor's whole group of source items, so the order in which its records arrive does not matter.

Nothing here does I/O.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from adminview.core import schema
from dynamo import ddb_json

SUMS = "Sums"
REV = "Rev"

Sums = dict[schema.Key, dict[str, Decimal]]  # sum item -> attribute -> what is added to it
Deltas = Sums


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


class Adding:
    """Sums being built: ``add(key, name, value)`` leaves zeros out."""

    def __init__(self) -> None:
        self.sums: Sums = {}

    def add(self, key: schema.Key, name: str, value: Decimal) -> None:
        if value:
            bucket = self.sums.setdefault(key, {})
            bucket[name] = bucket.get(name, Decimal(0)) + value


# --- the counted item ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Counted:
    """An anchor's counted item as read: its key, the sums it says were added, its revision (None: no item)."""

    key: schema.Key
    sums: Sums
    rev: int | None = None

    @property
    def exists(self) -> bool:
        return self.rev is not None


def read_counted(key: schema.Key, item: Mapping[str, Any] | None) -> Counted:
    if item is None:
        return Counted(key, {})
    sums: Sums = {}
    for pk, by_sk in ddb_json.mapping(item, SUMS).items():
        for sk, values in ddb_json.entries(by_sk).items():
            sums[(pk, sk)] = {name: decimal_of(ddb_json.as_text(v)) for name, v in ddb_json.entries(values).items()}
    return Counted(key, sums, ddb_json.integer(item, REV) or 0)


def counted_item(key: schema.Key, sums: Sums, rev: int) -> dict[str, Any]:
    by_pk: dict[str, dict[str, Any]] = {}
    for (pk, sk), values in sorted(sums.items()):
        by_pk.setdefault(pk, {})[sk] = {"M": {name: ddb_json.n(v) for name, v in sorted(values.items())}}
    return {
        **ddb_json.key(*key),
        schema.KIND: ddb_json.s(schema.COUNTED),
        SUMS: {"M": {pk: {"M": by_sk} for pk, by_sk in by_pk.items()}},
        REV: ddb_json.n(rev),
    }


def counted_write(table: str, before: Counted, after: Sums) -> dict[str, Any]:
    """A TransactWriteItems action: the counted item holds ``after``, where it is still ``before`` (deleted when
    nothing is counted any more)."""
    if before.exists:
        condition: dict[str, Any] = {
            "ConditionExpression": "#rev = :rev",
            "ExpressionAttributeNames": {"#rev": REV},
            "ExpressionAttributeValues": {":rev": ddb_json.n(before.rev or 0)},
        }
    else:
        condition = {"ConditionExpression": "attribute_not_exists(#pk)", "ExpressionAttributeNames": {"#pk": "PK"}}
    if not after:
        return {"Delete": {"TableName": table, "Key": ddb_json.key(*before.key), **condition}}
    return {"Put": {"TableName": table, "Item": counted_item(before.key, after, (before.rev or 0) + 1), **condition}}


# --- moving the sums -----------------------------------------------------------------------------------------


def difference(old: Sums, new: Sums) -> Deltas:
    """The changes of the sums that turn ``old`` into ``new`` (zeros left out)."""
    total = add_into({}, (new, {key: {n: -v for n, v in values.items()} for key, values in old.items()}))
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
