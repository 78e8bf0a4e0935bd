"""The numbers the back office opens on, kept exact: what an anchor adds to the sums (``Sums``: sum item key ->
attribute -> value), and how a change of it moves them. Exactly once, whatever the delivery: the anchor's
*counted* item holds the sums last added, with a revision, and whoever changes the sums writes the new ones there,
conditioned on the revision read, with the difference added to the sum items in the same TransactWriteItems
(``docs/admin-view.md``, "The numbers").
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from adminview.core import guard, schema, values

SUMS = "Sums"
REV = guard.REV

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


def _decimal(value: Any) -> Decimal:
    """A figure as stored: a number (or a decimal string); 0 for anything else."""
    if isinstance(value, Decimal):
        return value if value.is_finite() else Decimal(0)
    return decimal_of(values.as_text(value))


def read_counted(key: schema.Key, item: Mapping[str, Any] | None) -> Counted:
    if item is None:
        return Counted(key, {})
    sums: Sums = {}
    for pk, by_sk in values.mapping(item, SUMS).items():
        for sk, figures in values.entries(by_sk).items():
            sums[(pk, sk)] = {name: _decimal(v) for name, v in values.entries(figures).items()}
    return Counted(key, sums, values.integer(item, REV) or 0)


def counted_item(key: schema.Key, sums: Sums, rev: int) -> dict[str, Any]:
    by_pk: dict[str, dict[str, Any]] = {}
    for (pk, sk), figures in sorted(sums.items()):
        by_pk.setdefault(pk, {})[sk] = dict(sorted(figures.items()))
    return {**values.key(*key), schema.KIND: schema.COUNTED, SUMS: by_pk, REV: rev}


Move = tuple[Counted, Sums]  # an anchor's counted item as read, and the sums it must now hold


def move(counted: Counted, sums: Sums | None) -> Move | None:
    """The counted item's move to ``sums`` (None: the sums it holds are those, or the anchor adds to nothing)."""
    return (counted, sums) if sums is not None and sums != counted.sums else None


def counted_write(table: str, before: Counted, after: Sums) -> dict[str, Any]:
    """The counted item now holds ``after`` where it still holds ``before`` (deleted once it counts nothing)."""
    condition = guard.unchanged(stored=before.exists, rev=before.rev)
    if not after:
        return {"Delete": {"TableName": table, "Key": values.key(*before.key), **condition}}
    return {"Put": {"TableName": table, "Item": counted_item(before.key, after, (before.rev or 0) + 1), **condition}}


# --- moving the sums -----------------------------------------------------------------------------------------


def difference(old: Sums, new: Sums) -> Deltas:
    """The changes of the sums that turn ``old`` into ``new`` (zeros left out)."""
    total = add_into({}, (new, {key: {n: -v for n, v in figures.items()} for key, figures in old.items()}))
    return {key: kept for key, figures in total.items() if (kept := {n: v for n, v in figures.items() if v})}


def add_into(total: Deltas, parts: Iterable[Deltas]) -> Deltas:
    """``parts`` added to ``total`` in place (a running sum stays linear in what is added, however large)."""
    for part in parts:
        for key, figures in part.items():
            bucket = total.setdefault(key, {})
            for name, value in figures.items():
                bucket[name] = bucket.get(name, Decimal(0)) + value
    return total


def sum_update(table: str, key: schema.Key, added: Mapping[str, Decimal], now: float | None = None) -> dict[str, Any]:
    """A TransactWriteItems action (plain values) adding ``added`` to one sum item (ADD creates what is missing) and
    noting when (``At``: a verify leaves sums that changed while it ran for the next one)."""
    names = {f"#a{i}": name for i, name in enumerate(added)} | {"#at": schema.CHANGED_AT}
    value_map: dict[str, Any] = {f":v{i}": v for i, v in enumerate(added.values())}
    value_map[":at"] = round(time.time() if now is None else now, 3)
    return {
        "Update": {
            "TableName": table,
            "Key": values.key(*key),
            "UpdateExpression": "ADD " + ", ".join(f"#a{i} :v{i}" for i in range(len(added))) + " SET #at = :at",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": value_map,
        }
    }


def sum_updates(table: str, deltas: Iterable[Deltas], now: float | None = None) -> list[dict[str, Any]]:
    """The TransactWriteItems actions adding ``deltas``, merged: one update per sum item, zeros left out."""
    stamp = time.time() if now is None else now
    merged = add_into({}, deltas)
    return [
        sum_update(table, key, kept, stamp)
        for key, figures in merged.items()
        if (kept := {name: value for name, value in figures.items() if value})
    ]


def pack(writes: Sequence[int], touched: Sequence[Iterable[schema.Key]], limit: int) -> list[list[int]]:
    """Positions grouped, in the order given, into transactions of at most ``limit`` actions: each position's own
    writes (``writes[i]``) and one update for each sum item the group's positions touch (``touched[i]``), so sums
    that several positions add to are written once. A position whose own writes exceed ``limit`` goes alone: its
    writer splits it. The one packing of the sync's counting transactions and of a repair's."""
    groups: list[list[int]] = []
    group: list[int] = []
    size, sums = 0, set[schema.Key]()
    for i, (own, keys) in enumerate(zip(writes, touched, strict=True)):
        more = sums | set(keys)
        if group and size + own + len(more) > limit:
            groups.append(group)
            group, size, more = [], 0, set(keys)
        group.append(i)
        size, sums = size + own, more
    if group:
        groups.append(group)
    return groups


def sum_values(item: Mapping[str, Any]) -> dict[str, Decimal]:
    """A sum item's figures (every number but ``At``)."""
    return {
        name: Decimal(value)
        for name, value in item.items()
        if name not in (schema.PK, schema.SK, schema.CHANGED_AT) and values.is_number(value)
    }
