"""Plain values of DynamoDB JSON: the fast path equals boto3's deserializer followed by ``plain_value``."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from hypothesis import given, settings
from hypothesis import strategies as st

from shop.plain import from_attribute_values, plain_attribute, plain_value

numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.decimals(min_value=-(10**9), max_value=10**9, allow_nan=False, allow_infinity=False, places=4),
).map(lambda n: Decimal(n))
scalars = st.one_of(st.text(max_size=20), numbers, st.booleans(), st.none())
values = st.recursive(
    st.one_of(
        scalars,
        st.frozensets(st.text(min_size=1, max_size=5), min_size=1, max_size=4).map(set),
        st.frozensets(numbers, min_size=1, max_size=4).map(set),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
@given(values)
def test_plain_attribute_equals_the_deserializer_then_plain_value(value: Any) -> None:
    serialized = TypeSerializer().serialize(value)
    assert plain_attribute(serialized) == plain_value(TypeDeserializer().deserialize(serialized))


def test_numbers_keep_their_kind_and_keys_come_first() -> None:
    raw = {"b": {"N": "2.50"}, "SK": {"S": "x"}, "a": {"N": "-0"}, "PK": {"S": "p"}, "n": {"N": "12345678901234567890"}}
    assert list(from_attribute_values(raw).items()) == [
        ("PK", "p"),
        ("SK", "x"),
        ("a", 0),
        ("b", 2.5),
        ("n", 12345678901234567890),
    ]


def test_a_listed_item_shows_as_read_every_stored_attribute(shop_table: str) -> None:
    """``as_read`` equals serializing the model again for an item as read, keeps an attribute the model does not
    declare, and falls back to serializing for an item made in code."""
    from dynamo.client import client_of
    from shop import access_patterns as ap
    from shop.models import Customer
    from shop.plain import as_read
    from tests import factories
    from tests.factories import to_plain

    factories.customer("1001")
    client_of(Customer).update_item(
        TableName=shop_table,
        Key={"PK": {"S": "c#1001"}, "SK": {"S": "c#1001"}},
        UpdateExpression="SET Legacy = :v",
        ExpressionAttributeValues={":v": {"N": "7"}},
    )
    got = ap.customer_by_id(customer_id="1001")
    assert got is not None and got.attributes_as_read() is not None
    assert as_read(got) == {**to_plain(got), "Legacy": 7}
    assert list(as_read(got))[:3] == ["PK", "SK", "EntityType"]
    made = Customer(pk="c#1", sk="c#1", name="Grace")
    assert made.attributes_as_read() is None and as_read(made) == to_plain(made)
