"""DynamoDB JSON (``{"S": "..."}``, ``{"N": "12"}``, ``{"M": {...}}``): the one place that reads and writes
attribute values by their type tags.

Stream images, raw Query/Scan/BatchGetItem answers and hand-built requests all use this shape. Everything that
reads an attribute out of one, or builds one, goes through these functions, so a value of an unexpected type
(a number where a string was expected, an image from another service) is handled the same way everywhere: the
readers return None instead of raising. The admin view's core never reads it: it is handed plain values, decoded
once by ``dynamo.item_codec``.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

Value = dict[str, Any]
Item = dict[str, Value]
Key = tuple[str, str]


# --- building ----------------------------------------------------------------------------------------------


def s(value: str) -> Value:
    return {"S": value}


def n(value: int | float | Decimal | str) -> Value:
    """A number, written as DynamoDB gives it back (``10.50`` is read as ``10.5``), so items built here compare
    equal to items read: decimals without trailing zeros or exponent, floats as ``repr``."""
    if isinstance(value, Decimal):
        return {"N": format(value.normalize(), "f") if value else "0"}
    return {"N": repr(value) if isinstance(value, float) else str(value)}


def key(pk: str, sk: str) -> Item:
    """The ``{"PK": ..., "SK": ...}`` key every table of ours uses."""
    return {"PK": s(pk), "SK": s(sk)}


# --- reading -----------------------------------------------------------------------------------------------


def _value(item: Mapping[str, Any] | None, name: str) -> Any:
    value = item.get(name) if isinstance(item, Mapping) else None
    return value if isinstance(value, dict) else None


def as_string(value: Any) -> str | None:
    """A string value's text; None for any other value."""
    found = value.get("S") if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def as_text(value: Any) -> str | None:
    """A string or number value as text; None for any other value."""
    if not isinstance(value, dict):
        return None
    for tag in ("S", "N"):
        if isinstance(value.get(tag), str):
            return str(value[tag])
    return None


def elements(value: Any) -> list[Value]:
    """A list value's elements; empty for any other value."""
    found = value.get("L") if isinstance(value, dict) else None
    return [v for v in found if isinstance(v, dict)] if isinstance(found, list) else []


def string(item: Mapping[str, Any] | None, name: str) -> str | None:
    """A string attribute; None when absent or of another type."""
    value = _value(item, name)
    found = value.get("S") if value is not None else None
    return found if isinstance(found, str) else None


def text(item: Mapping[str, Any] | None, name: str) -> str | None:
    """A string or number attribute as text (AWS's model stores some numbers as strings, other writers may
    not); None when absent or of another type."""
    value = _value(item, name)
    if value is None:
        return None
    for tag in ("S", "N"):
        if isinstance(value.get(tag), str):
            return str(value[tag])
    return None


def number(item: Mapping[str, Any] | None, name: str) -> float | None:
    """A number attribute as a float; None when absent or of another type."""
    value = _value(item, name)
    found = value.get("N") if value is not None else None
    return float(found) if isinstance(found, str) else None


def integer(item: Mapping[str, Any] | None, name: str) -> int | None:
    """A whole number attribute (``N``, or ``S`` holding digits); None when absent; ``ValueError`` when it holds
    something that is not a whole number (a malformed record must fail, not count as zero)."""
    found = text(item, name)
    if found is None or found == "":
        return None
    try:
        return int(found)
    except ValueError as exc:
        raise ValueError(f"{name} {found!r} is not a whole number") from exc


def entries(value: Any) -> Item:
    """A map value's entries; empty for anything that is not a map."""
    found = value.get("M") if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


def mapping(item: Mapping[str, Any] | None, name: str) -> Item:
    """A map attribute's entries; empty when absent or of another type."""
    return entries(_value(item, name))


def listing(item: Mapping[str, Any] | None, name: str) -> list[Value]:
    """A list attribute's elements; empty when absent or of another type."""
    return elements(_value(item, name))


def item_key(item: Mapping[str, Any]) -> Key:
    """``(PK, SK)`` of an item that has both (``KeyError`` otherwise: callers pass items of our tables)."""
    pk, sk = string(item, "PK"), string(item, "SK")
    if pk is None or sk is None:
        raise KeyError("item without string PK and SK")
    return pk, sk


def maybe_key(item: Mapping[str, Any] | None) -> Key | None:
    """``(PK, SK)``, or None when either is missing (malformed records, foreign items)."""
    pk, sk = string(item, "PK"), string(item, "SK")
    return (pk, sk) if pk is not None and sk is not None else None
