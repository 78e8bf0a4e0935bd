"""DynamoDB JSON (``{"S": "..."}``, ``{"N": "12"}``, ``{"M": {...}}``) for hand-built requests (keys, expression
values). Items read are decoded once (``dynamo.item_codec``) and read as plain values (``adminview.core.values``);
the readers below are for the explorer, which shows DynamoDB's own shapes (``tests/adminview/test_declared_once.py``
checks that no other module reads them), the tests and the benchmark. A value of an unexpected type reads as None.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

Value = dict[str, Any]
Item = dict[str, Value]


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


def as_string(value: Any) -> str | None:
    """A string value's text; None for any other value."""
    found = value.get("S") if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def _value(item: Mapping[str, Any] | None, name: str) -> Any:
    value = item.get(name) if isinstance(item, Mapping) else None
    return value if isinstance(value, dict) else None


def string(item: Mapping[str, Any] | None, name: str) -> str | None:
    """A string attribute; None when absent or of another type."""
    return as_string(_value(item, name))


def text(item: Mapping[str, Any] | None, name: str) -> str | None:
    """A string or number attribute as text (AWS's model stores some numbers as strings, other writers may not)."""
    value = _value(item, name) or {}
    found = value.get("S", value.get("N"))
    return found if isinstance(found, str) else None
