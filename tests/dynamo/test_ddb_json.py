"""DynamoDB JSON readers: values of the expected type come back plain, anything else is None, never an error."""

from __future__ import annotations

from dynamo import ddb_json

ITEM = {
    "PK": {"S": "o#1"},
    "SK": {"S": "c#2"},
    "Quantity": {"S": "3"},
    "Version": {"N": "4"},
    "AppliedAt": {"N": "1700000000.25"},
    "Detail": {"M": {"Payments": {"L": [{"M": {"TransactionId": {"S": "tx"}}}, "junk"]}}},
    "Odd": "not a value",
}


def test_readers_take_only_their_own_type() -> None:
    assert ddb_json.string(ITEM, "PK") == "o#1"
    assert ddb_json.string(ITEM, "Version") is None  # a number is not a string
    assert ddb_json.text(ITEM, "Version") == "4" and ddb_json.text(ITEM, "Quantity") == "3"
    for name in ("Odd", "Missing"):
        assert ddb_json.string(ITEM, name) is None and ddb_json.text(ITEM, name) is None
    assert ddb_json.string(None, "PK") is None


def test_keys() -> None:
    assert ddb_json.key("c#1", "#profile") == {"PK": {"S": "c#1"}, "SK": {"S": "#profile"}}

    assert ddb_json.n(0.5) == {"N": "0.5"} and ddb_json.n(12) == {"N": "12"}


def test_decimals_are_written_as_dynamodb_reads_them_back() -> None:
    from decimal import Decimal

    assert [ddb_json.n(Decimal(text))["N"] for text in ("10.50", "10", "1E+2", "0.00", "-3.10")] == [
        "10.5",
        "10",
        "100",
        "0",
        "-3.1",
    ]
