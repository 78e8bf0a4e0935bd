"""Items between DynamoDB JSON (what the low-level client and stream records carry) and plain Python values
(``str``, ``Decimal``, ``dict``, ``list``, ``set``, ``bool``, None): decoded once where read, encoded once where
written, so the code between (the admin view's core) sees only plain values.

Decoding gives what boto3's ``TypeDeserializer`` gives, but strings, numbers, maps and lists (nearly all the sync
sees) are decoded here directly: ``TypeDeserializer`` dispatches each value through ``getattr``, which the sync would
pay on every value of anchors full of maps. Encoding writes numbers as ``ddb_json.n`` does (boto3's
``TypeSerializer`` refuses floats and keeps trailing zeros), so what is written stays byte for byte what the view
held when its items were built as DynamoDB JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, cast

from boto3.dynamodb.types import DYNAMODB_CONTEXT, TypeDeserializer, TypeSerializer

from dynamo import ddb_json

_deserializer = TypeDeserializer()
_serializer = TypeSerializer()
_create_decimal = DYNAMODB_CONTEXT.create_decimal
ENCODED_PARTS = ("Item", "Key", "ExpressionAttributeValues")


def decode_value(value: Mapping[str, Any]) -> Any:
    if len(value) == 1:
        ((tag, inner),) = value.items()
        if tag == "S":
            return inner
        if tag == "N":
            return _create_decimal(inner)
        if tag == "M":
            return {name: decode_value(v) for name, v in inner.items()}
        if tag == "L":
            return [decode_value(v) for v in inner]
    return _deserializer.deserialize(cast("Any", value))  # sets, binary, BOOL, NULL; a malformed value raises


def decode(item: Mapping[str, Any]) -> dict[str, Any]:
    return {name: decode_value(value) for name, value in item.items()}


def decode_or_none(item: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return decode(item) if item is not None else None


def encode_value(value: Any) -> dict[str, Any]:
    kind = type(value)
    if kind is str:
        return {"S": value}
    if kind is Decimal or kind is int or kind is float:
        return ddb_json.n(value)
    if kind is dict:
        return {"M": {name: encode_value(v) for name, v in value.items()}}
    if kind is list:
        return {"L": [encode_value(v) for v in value]}
    return _encode_other(value)


def _encode_other(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | float | Decimal):
        return ddb_json.n(value)
    if isinstance(value, Mapping):
        return {"M": {name: encode_value(v) for name, v in value.items()}}
    if isinstance(value, list | tuple):
        return {"L": [encode_value(v) for v in value]}
    if value is None:
        return {"NULL": True}
    if isinstance(value, set | frozenset) and value and all(isinstance(v, str) for v in value):
        return {"SS": sorted(value)}
    if isinstance(value, set | frozenset) and value and all(_is_number(v) for v in value):
        return {"NS": [ddb_json.n(v)["N"] for v in sorted(value)]}
    return dict(_serializer.serialize(value))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def encode(item: Mapping[str, Any]) -> dict[str, Any]:
    return {name: {"S": value} if type(value) is str else encode_value(value) for name, value in item.items()}


def encode_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """A PutItem, DeleteItem or UpdateItem body (or one action's) with its plain values encoded, as boto3's resource
    layer does for its ``Table`` calls."""
    return {name: encode(value) if name in ENCODED_PARTS else value for name, value in body.items()}


def encode_action(action: Mapping[str, Any]) -> dict[str, Any]:
    """A TransactWriteItems action (``{"Put": {...}}``, ``Update``, ``Delete``, ``ConditionCheck``) encoded."""
    return {kind: encode_request(body) for kind, body in action.items()}
