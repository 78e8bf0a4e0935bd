"""Items between DynamoDB JSON and plain values (``dynamo.item_codec``): decoded as boto3 decodes them, encoded as
the view has always been written. Pure, no DynamoDB."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import Binary, TypeDeserializer
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamo import ddb_json, item_codec

numbers = st.decimals(min_value=-(10**20), max_value=10**20, places=4, allow_nan=False, allow_infinity=False)
scalars = st.one_of(
    st.builds(lambda s: {"S": s}, st.text(max_size=8)),
    st.builds(lambda d: {"N": str(d)}, numbers),
    st.builds(lambda b: {"BOOL": b}, st.booleans()),
    st.just({"NULL": True}),
    st.builds(lambda ss: {"SS": sorted(ss)}, st.sets(st.text(max_size=4), min_size=1, max_size=3)),
    st.builds(lambda b: {"B": b}, st.binary(min_size=1, max_size=4)),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.builds(lambda m: {"M": m}, st.dictionaries(st.text(max_size=4), inner, max_size=3)),
        st.builds(lambda items: {"L": items}, st.lists(inner, max_size=3)),
    ),
    max_leaves=8,
)


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=6), values, max_size=5))
def test_an_item_decodes_as_boto3s_type_deserializer_decodes_it(item: dict[str, Any]) -> None:
    deserializer = TypeDeserializer()
    assert item_codec.decode(item) == {name: deserializer.deserialize(v) for name, v in item.items()}


def test_numbers_are_written_as_the_view_always_wrote_them() -> None:
    item: dict[str, Decimal | int | float] = {
        "Units": Decimal("2.00"),
        "Revenue": Decimal("10.50"),
        "Rev": 3,
        "AppliedAt": 1.5,
        "Big": Decimal("1E+3"),
    }
    assert item_codec.encode(item) == {
        "Units": {"N": "2"},
        "Revenue": {"N": "10.5"},
        "Rev": {"N": "3"},
        "AppliedAt": {"N": "1.5"},
        "Big": {"N": "1000"},
    }
    assert item_codec.encode(item) == {name: ddb_json.n(v) for name, v in item.items()}


def test_every_type_keeps_its_dynamodb_type_through_a_round_trip() -> None:
    stored = {
        "PK": {"S": "o#1"},
        "Price": {"S": "9.50"},  # a decimal string stays a string
        "Total": {"N": "12.5"},
        "Lines": {"M": {"p#7": {"M": {"Quantity": {"S": "2"}, "Price": {"N": "1.25"}}}}},
        "Invoices": {"L": [{"S": "TX-1"}]},
        "Tags": {"SS": ["a", "b"]},
        "Sizes": {"NS": ["1", "2.5"]},
        "Gift": {"BOOL": False},
        "Note": {"NULL": True},
        "Blob": {"B": b"\x00\x01"},
    }
    plain = item_codec.decode(stored)
    assert plain["Price"] == "9.50" and plain["Total"] == Decimal("12.5") and plain["Tags"] == {"a", "b"}
    assert plain["Blob"] == Binary(b"\x00\x01")
    assert item_codec.encode(plain) == stored


def test_a_request_has_its_item_key_and_values_encoded_and_nothing_else() -> None:
    action = {
        "Update": {
            "TableName": "view",
            "Key": {"PK": "s#1", "SK": "d#2026-03-04"},
            "UpdateExpression": "ADD #a0 :v0",
            "ExpressionAttributeNames": {"#a0": "Units"},
            "ExpressionAttributeValues": {":v0": Decimal("2.0")},
        }
    }
    assert item_codec.encode_action(action) == {
        "Update": {
            "TableName": "view",
            "Key": {"PK": {"S": "s#1"}, "SK": {"S": "d#2026-03-04"}},
            "UpdateExpression": "ADD #a0 :v0",
            "ExpressionAttributeNames": {"#a0": "Units"},
            "ExpressionAttributeValues": {":v0": {"N": "2"}},
        }
    }


def test_a_malformed_value_raises() -> None:
    for bad in ({"X": "1"}, {}):
        try:
            item_codec.decode({"A": bad})
        except (TypeError, ValueError):
            continue
        raise AssertionError(f"{bad} decoded")
