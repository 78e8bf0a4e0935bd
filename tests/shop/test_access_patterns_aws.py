"""AWS's walkthrough (EXAMPLE_README.md): import AnOnlineShop_13.json, run each of the 16 patterns through the
`access_pattern` command, get exactly the items the walkthrough's examples give."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from tests.samples import AWS_MODEL


def run(name: str, *args: str) -> list[dict[str, Any]]:
    out = StringIO()
    call_command("access_pattern", name, *args, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def keys_of(items: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(i["PK"], i["SK"]) for i in items]


@pytest.fixture
def aws_sample(shop_table: str) -> list[dict[str, Any]]:
    call_command("import_workbench", str(AWS_MODEL), stdout=StringIO())
    from boto3.dynamodb.types import TypeDeserializer

    from shop.plain import plain_value

    raw = json.loads(AWS_MODEL.read_text())["DataModel"][0]["TableData"]
    return [{k: plain_value(TypeDeserializer().deserialize(v)) for k, v in item.items()} for item in raw]


EXAMPLES = [
    ("getCustomerByCustomerId", ["c#12345"], [("c#12345", "c#12345")]),
    ("getProductByProductId", ["p#12345"], [("p#12345", "p#12345")]),
    ("getWarehouseByWarehouseId", ["w#12345"], [("w#12345", "w#12345")]),
    ("getProductInventoryByProductId", ["p#12345"], [("p#12345", "w#12345")]),
    (
        "getOrderDetailsByOrderId",
        ["o#12345"],
        [
            ("o#12345", "c#12345"),
            ("o#12345", "i#55443"),
            ("o#12345", "p#12345"),
            ("o#12345", "p#99887"),
            ("o#12345", "sh#88899"),
            ("o#12345", "sh#98765"),
            ("o#12345", "shp#12345"),
            ("o#12345", "shp#54321"),
            ("o#12345", "shp#55555"),
        ],
    ),
    ("getProductByOrderId", ["o#12345"], [("o#12345", "p#12345"), ("o#12345", "p#99887")]),
    ("getInvoiceByOrderId", ["o#12345"], [("o#12345", "i#55443")]),
    ("getShipmentByOrderId", ["o#12345"], [("o#12345", "sh#88899"), ("o#12345", "sh#98765")]),
    (
        "getOrderByProductIdForDateRange",
        ["p#99887", "2020-06-21T00:00:00", "2020-06-21T23:59:00"],
        [("o#12345", "p#99887")],
    ),
    ("getInvoiceByInvoiceId", ["i#55443"], [("o#12345", "i#55443")]),
    ("getPaymentByInvoiceId", ["i#55443"], [("o#12345", "i#55443")]),
    # GSI1 sorts by GSI1-SK: p#12345 (shp#55555), p#99887 (shp#12345), sh#98765 (the shipment).
    (
        "getShipmentDetailsByShipmentId",
        ["sh#98765"],
        [("o#12345", "shp#55555"), ("o#12345", "shp#12345"), ("o#12345", "sh#98765")],
    ),
    ("getShipmentByWarehouseId", ["w#12345"], [("o#12345", "sh#98765")]),
    ("getProductInventoryByWarehouseId", ["w#12345"], [("p#12345", "w#12345"), ("p#99887", "w#12345")]),
    # The walkthrough's own example ranges (June 1-15) hold nothing: the sample order is from June 21.
    ("getInvoiceByCustomerIdForDateRange", ["c#12345", "2020-06-01", "2020-06-15"], []),
    ("getProductsByCustomerIdForDateRange", ["c#12345", "2020-06-01", "2020-06-15"], []),
    ("getInvoiceByCustomerIdForDateRange", ["c#12345", "2020-06-01", "2020-06-30"], [("o#12345", "i#55443")]),
    (
        "getProductsByCustomerIdForDateRange",
        ["c#12345", "2020-06-21", "2020-06-21"],
        [("o#12345", "p#12345"), ("o#12345", "p#99887")],
    ),
]


@pytest.mark.parametrize(("name", "args", "expected"), EXAMPLES, ids=[f"{e[0]}-{i}" for i, e in enumerate(EXAMPLES)])
def test_walkthrough_examples(
    aws_sample: list[dict[str, Any]], name: str, args: list[str], expected: list[Any]
) -> None:
    assert keys_of(run(name, *args)) == expected


def test_output_is_the_items_as_stored(aws_sample: list[dict[str, Any]]) -> None:
    """Attribute names and plain values exactly as in AWS's file (decimal strings stay strings)."""
    by_key = {(i["PK"], i["SK"]): i for i in aws_sample}
    for item in run("getOrderDetailsByOrderId", "12345"):
        assert item == by_key[(item["PK"], item["SK"])]
    (invoice,) = run("getPaymentByInvoiceId", "55443")
    assert [p["Type"] for p in invoice["Detail"]["Payments"]] == ["GiftCard", "MasterCard"]
    assert invoice["Amount"] == "400"


def test_ids_with_or_without_prefix(aws_sample: list[dict[str, Any]]) -> None:
    assert run("getCustomerByCustomerId", "12345") == run("getCustomerByCustomerId", "c#12345")
    assert run("getShipmentByWarehouseId", "12345") == run("getShipmentByWarehouseId", "w#12345")
