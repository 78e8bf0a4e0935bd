"""Key formats and timestamp ranges: pure functions, no engine."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shop import keys, timestamps


@pytest.mark.parametrize(("raw", "bare"), [("c#12345", "12345"), ("12345", "12345"), (" 7 ", "7")])
def test_customer_ids_with_or_without_prefix(raw: str, bare: str) -> None:
    assert keys.customer(raw) == "c#" + bare


@pytest.mark.parametrize("raw", ["o#1", "", "a b", "x" * 65, "-1", "c#"])
def test_invalid_ids(raw: str) -> None:
    with pytest.raises(keys.InvalidId):
        keys.customer(raw)


def test_range_bounds() -> None:
    low, high = timestamps.range_bounds("2020-06-01", "2020-06-30")
    assert low == "2020-06-01T00:00:00" and high.startswith("2020-06-30T23:59:59")
    assert high >= "2020-06-30T23:59:59" and high < "2020-07-01T00:00:00"
    with pytest.raises(timestamps.InvalidDate):
        timestamps.range_bounds("2020-06-30", "2020-06-01")
    with pytest.raises(timestamps.InvalidDate):
        timestamps.range_bounds("2020-02-30", "2020-03-01")


_PREFIXES = (
    keys.SHIPMENT_ITEM,
    keys.SHIPMENT,
    keys.PAYMENT,
    keys.FAVOURITE,
    keys.CUSTOMER,
    keys.PRODUCT,
    keys.WAREHOUSE,
    keys.ORDER,
    keys.INVOICE,
)


def _strip_by_prefixes(key: str) -> str:
    """The definition: the first known prefix the key starts with comes off."""
    for prefix in _PREFIXES:
        if key.startswith(prefix):
            return key[len(prefix) :]
    return key


_HEADS = st.sampled_from([*_PREFIXES, "AUDIT#", "t#", "x#", "sh", "#", ""])


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
@given(st.one_of(st.builds(lambda head, rest: head + rest, _HEADS, st.text()), st.text()))
def test_strip_takes_off_exactly_a_known_prefix(key: str) -> None:
    assert keys.strip(key) == _strip_by_prefixes(key)


@pytest.mark.parametrize(
    ("key", "bare"),
    [("c#12345", "12345"), ("shp#9", "9"), ("sh#9", "9"), ("FAVOURITE#p1", "p1"), ("AUDIT#x", "AUDIT#x"), ("7", "7")],
)
def test_strip_examples(key: str, bare: str) -> None:
    assert keys.strip(key) == bare


def test_each_entity_declares_its_keys_as_aws_model_spells_them() -> None:
    from shop import keys

    when = "2020-06-21T19:18:00"
    assert keys.order_item_keys("12345", "p#100", "c#12345", when) == {
        "pk": "o#12345",
        "sk": "p#100",
        "gsi1_pk": "p#100",
        "gsi1_sk": when,
        "gsi2_pk": "c#12345",
        "gsi2_sk": "p#" + when,
    }
    assert keys.invoice_keys("1", "55443", "12345", when)["gsi2_sk"] == "i#" + when
    assert keys.inventory_keys("100", "w1") == {"pk": "p#100", "sk": "w#w1", "gsi2_pk": "w#w1", "gsi2_sk": "p#100"}
    assert "gsi2_pk" not in keys.shipment_keys("1", "1-1", None)
    assert keys.shipment_item_keys("1", "1-1", "100")["sk"] == "shp#1-1-100"
    assert keys.without_prefix("o#42", keys.ORDER) == "42" and keys.without_prefix("c#42", keys.ORDER) is None
    assert keys.after_audit(keys.audit("2024-01-01T00:00:00", "ab")) == "2024-01-01T00:00:00#ab"
    with pytest.raises(keys.InvalidId):
        keys.customer_keys("bad id")
