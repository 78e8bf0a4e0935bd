"""Reading attributes out of plain items (``str``, ``Decimal``, ``dict``, ``list``: what ``dynamo.item_codec``
decodes a stream image or a stored item into) the same way everywhere: a value of an unexpected type (a number
where a string was expected, an image from another service) reads as None, or empty, instead of raising.

Numbers come decoded as ``Decimal``; AWS's model keeps some numbers as strings (``Price``, ``Quantity``), and other
writers may not, so ``text`` reads either as text (a number in fixed-point notation, as DynamoDB gives it).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

Item = dict[str, Any]
Key = tuple[str, str]


def key(pk: str, sk: str) -> Item:
    """The ``{"PK": ..., "SK": ...}`` key every table of ours uses."""
    return {"PK": pk, "SK": sk}


def _get(item: Mapping[str, Any] | None, name: str) -> Any:
    if type(item) is dict:  # nearly always: the ABC check below is the slow path
        return item.get(name)
    return item.get(name) if isinstance(item, Mapping) else None


def is_number(value: Any) -> bool:
    return isinstance(value, Decimal | int | float) and not isinstance(value, bool)


def as_string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value) if is_number(value) else None


def string(item: Mapping[str, Any] | None, name: str) -> str | None:
    return as_string(_get(item, name))


def text(item: Mapping[str, Any] | None, name: str) -> str | None:
    return as_text(_get(item, name))


def number(item: Mapping[str, Any] | None, name: str) -> float | None:
    value = _get(item, name)
    return float(value) if is_number(value) else None


def integer(item: Mapping[str, Any] | None, name: str) -> int | None:
    """A whole number attribute (a number, or a string holding digits); None when absent; ``ValueError`` when it
    holds something that is not a whole number (a malformed record must fail, not count as zero)."""
    found = text(item, name)
    if found is None or found == "":
        return None
    try:
        return int(found)
    except ValueError as exc:
        raise ValueError(f"{name} {found!r} is not a whole number") from exc


def entries(value: Any) -> Item:
    if type(value) is dict:
        return value
    return dict(value) if isinstance(value, Mapping) else {}


def elements(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def mapping(item: Mapping[str, Any] | None, name: str) -> Item:
    return entries(_get(item, name))


def listing(item: Mapping[str, Any] | None, name: str) -> list[Any]:
    return elements(_get(item, name))


def item_key(item: Mapping[str, Any]) -> Key:
    """``(PK, SK)`` of an item that has both (``KeyError`` otherwise: callers pass items of our tables)."""
    if (found := maybe_key(item)) is None:
        raise KeyError("item without string PK and SK")
    return found


def maybe_key(item: Mapping[str, Any] | None) -> Key | None:
    """``(PK, SK)``, or None when either is missing (malformed records, foreign items)."""
    pk, sk = string(item, "PK"), string(item, "SK")
    return (pk, sk) if pk is not None and sk is not None else None
