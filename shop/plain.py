"""Items as plain JSON-able dicts with DynamoDB attribute names (``{"PK": ..., "Quantity": "2"}``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from pynamodb.models import Model

from dynamo import item_codec
from dynamo.models import InstrumentedModel
from shop import keys

_FIRST = ("PK", "SK", keys.ENTITY_TYPE)


def plain_value(value: Any) -> Any:
    """A decoded value made JSON-friendly: whole Decimals as int, others float, sets sorted lists, bytes hex."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: plain_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(plain_value(v) for v in value)
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    return value


def plain_attribute(value: Mapping[str, Any]) -> Any:
    """One DynamoDB JSON value, decoded (``item_codec``) and made JSON-friendly (``plain_value``)."""
    return plain_value(item_codec.decode_value(value))


def from_attribute_values(raw: Mapping[str, Any]) -> dict[str, Any]:
    """DynamoDB JSON (``{"S": ...}``) -> plain values, keys first, the rest sorted by name."""
    return from_decoded(item_codec.decode(raw))


def from_decoded(item: Mapping[str, Any]) -> dict[str, Any]:
    """A decoded item made JSON-friendly, as ``from_attribute_values`` gives it from DynamoDB JSON."""
    names = [n for n in _FIRST if n in item] + sorted(n for n in item if n not in _FIRST)
    return {name: plain_value(item[name]) for name in names}


def read_attributes(item: Model) -> Mapping[str, Any]:
    """A listed item's attributes (DynamoDB JSON) as its read returned them, declared or not, without serializing
    the model again (serialized for an item not made by a read). Only for items not changed since read."""
    read = item.attributes_as_read() if isinstance(item, InstrumentedModel) else None
    return read if read is not None else item.serialize()


def as_read(item: Model) -> dict[str, Any]:
    """A listed item's plain values (``read_attributes``)."""
    return from_attribute_values(read_attributes(item))


def to_json_line(item: Model) -> str:
    """A listed item (``as_read``) as one line of JSON."""
    return json.dumps(as_read(item), ensure_ascii=False)
