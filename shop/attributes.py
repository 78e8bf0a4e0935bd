"""Attribute types for AWS's wire format: exact decimals stored as strings (or numbers), timestamps as text."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar

from pynamodb.attributes import Attribute, MapAttribute
from pynamodb.constants import NUMBER, STRING

from shop.errors import InvalidInput
from shop.timestamps import format_ts, parse_ts

K = TypeVar("K", bound=str)
V = TypeVar("V")


class Map(MapAttribute[K, V]):
    """A ``MapAttribute`` with an annotated constructor (PynamoDB leaves it unannotated, so every
    ``Address(...)`` would be an untyped call)."""

    def __init__(self, **attributes: Any) -> None:
        super().__init__(**attributes)  # type: ignore[no-untyped-call]  # unannotated in PynamoDB


def to_decimal(value: object, *, what: str = "amount") -> Decimal:
    """Exact decimal from str/int/Decimal (never float: 0.1 + 0.2 must not leak into money), else InvalidInput."""
    if isinstance(value, float):
        raise InvalidInput(f"{what} must not be a float (got {value!r}); pass a str or Decimal")
    try:
        result = Decimal(str(value).strip())
    except (InvalidOperation, ValueError) as exc:
        raise InvalidInput(f"{what} {value!r} is not a decimal number") from exc
    if not result.is_finite():
        raise InvalidInput(f"{what} {value!r} is not a finite number")
    return result


def decimal_text(value: Decimal) -> str:
    """Canonical text: no exponent, no trailing zeros beyond what the value says ("100", "19.90")."""
    return format(value, "f")


class DecimalStringAttribute(Attribute[Decimal]):
    """A decimal stored as a string (``"Price": {"S": "100"}``), as AWS's model does."""

    attr_type = STRING

    def serialize(self, value: Decimal) -> str:
        return decimal_text(to_decimal(value, what=self.attr_name))

    def deserialize(self, value: str) -> Decimal:
        return to_decimal(value, what=self.attr_name)


class IntStringAttribute(Attribute[int]):
    """A whole quantity stored as a decimal string (``"Quantity": {"S": "50"}``)."""

    attr_type = STRING

    def serialize(self, value: int) -> str:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{self.attr_name} must be an int, got {value!r}")
        return str(value)

    def deserialize(self, value: str) -> int:
        number = to_decimal(value, what=self.attr_name)
        if number != number.to_integral_value():
            raise ValueError(f"{self.attr_name} {value!r} is not a whole number")
        return int(number)


class DecimalNumberAttribute(DecimalStringAttribute):
    """A DynamoDB number read as an exact Decimal (PynamoDB's NumberAttribute would give a float)."""

    attr_type = NUMBER


class TimestampAttribute(Attribute[datetime]):
    """``YYYY-MM-DDTHH:MM:SS`` text, naive UTC in Python."""

    attr_type = STRING

    def serialize(self, value: datetime) -> str:
        return format_ts(value)

    def deserialize(self, value: str) -> datetime:
        return parse_ts(value)
