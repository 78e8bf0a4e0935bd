"""Items as plain JSON-able dicts with DynamoDB attribute names (``{"PK": ..., "Quantity": "2"}``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pynamodb.models import Model

from dynamo.ddb_json import plain as plain_attribute
from dynamo.ddb_json import plain_value
from dynamo.models import InstrumentedModel

_FIRST = ("PK", "SK", "EntityType")

__all__ = ["as_read", "from_attribute_values", "plain_attribute", "plain_value", "to_json_line", "to_plain"]


def from_attribute_values(raw: Mapping[str, Any]) -> dict[str, Any]:
    """DynamoDB JSON (``{"S": ...}``) -> plain values, keys first, the rest sorted by name."""
    names = [n for n in _FIRST if n in raw] + sorted(n for n in raw if n not in _FIRST)
    return {name: plain_attribute(raw[name]) for name in names}


def to_plain(item: Model) -> dict[str, Any]:
    return from_attribute_values(item.serialize())


def read_attributes(item: Model) -> Mapping[str, Any]:
    """A listed item's attributes (DynamoDB JSON) as its read returned them (``attributes_as_read``: every stored
    attribute, declared by the model or not) without serializing the model again, as a listing of dozens would;
    serialized for an item not made by a read. Only for items not changed since they were read."""
    read = item.attributes_as_read() if isinstance(item, InstrumentedModel) else None
    return read if read is not None else item.serialize()


def as_read(item: Model) -> dict[str, Any]:
    """A listed item's plain values (``read_attributes``)."""
    return from_attribute_values(read_attributes(item))


def to_json_line(item: Model) -> str:
    """A listed item (``as_read``) as one line of JSON."""
    return json.dumps(as_read(item), ensure_ascii=False)
