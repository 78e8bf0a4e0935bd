"""``adminview.core.schema``'s kinds: each view item kind built from plain values and read back as its typed row, the
one place its attributes are named. Pure: no DynamoDB."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from decimal import Decimal

import pytest

from adminview.core import schema


def test_an_order_summary_reads_back_as_a_typed_row() -> None:
    # given an order's anchor built from plain values, numbers as DynamoDB decodes them
    key = schema.order_anchor("42")
    item = schema.ORDER_KIND.item(
        key, order_id="42", customer_id="7", date="2024-05-01T10:00:00", status="PENDING", total=Decimal("9.5")
    )
    item[schema.ORDER_KIND.attribute("item_count")] = Decimal(3)

    # when it is read by its kind
    row = schema.ORDER_KIND.read(item, position="p")

    # then every attribute has its type, and what the item lacks is the default
    assert row == schema.OrderRow("42", "7", datetime(2024, 5, 1, 10), "PENDING", Decimal("9.5"), 3, "p")
    assert item[schema.KIND] == schema.ORDER and (item[schema.PK], item[schema.SK]) == key


def test_malformed_or_missing_values_read_as_defaults() -> None:
    # given values another writer may leave: text where a number belongs, a number where text belongs
    item = {schema.ORDER_ID: 42, "Total": "lots", "ItemCount": "2.5", "Date": "yesterday"}

    # when read, then none raises: each reads as None (or its default) and a number as text where text is declared
    row = schema.ORDER_KIND.read(item)
    assert (row.order_id, row.customer_id, row.total, row.item_count, row.date) == ("42", "", None, None, None)
    assert schema.ORDER_KIND.read(None) == schema.OrderRow("", "", None, None, None, None)


def test_a_kind_refuses_a_field_it_does_not_declare() -> None:
    with pytest.raises(TypeError, match="no attribute"):
        schema.PAYMENT_KIND.item(schema.payment("T1", "42"), order_id="42", amount=Decimal(1))


@pytest.mark.parametrize("kind", schema.KINDS, ids=lambda k: k.name)
def test_every_kind_reads_every_attribute_into_a_field_of_its_row(kind: schema.Kind[object]) -> None:
    # given a kind's declaration, when its row type is inspected
    fields = {f.name for f in dataclasses.fields(kind.row)}  # type: ignore[arg-type]

    # then each attribute fills a field of the row, and ATTRIBUTES (the docs' and the exports' columns) names them
    assert {a.field for a in kind.attributes} <= fields
    assert schema.ATTRIBUTES[kind.name] == kind.names


def test_adding_an_attribute_is_one_line_in_its_declaration() -> None:
    # given a kind declared with one more attribute (what adding ``Channel`` to the profile takes, with its field)
    @dataclasses.dataclass(frozen=True)
    class Profile(schema.ProfileRow):
        channel: str | None = None

    kind = schema.Kind(schema.PROFILE, Profile, (*schema.PROFILE_KIND.attributes, schema.Attribute("Channel")))

    # when an item is built and read with it, then the new attribute is written and read like the others
    item = kind.item(schema.profile("7"), name="Ada", channel="web")
    assert item["Channel"] == "web" and kind.read(item) == Profile(name="Ada", channel="web")
