"""Workbench import: every AWS model file loads; a malformed file is refused whole, nothing written."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from shop import access_patterns as ap
from shop.workbench import WorkbenchError, parse_document
from tests.samples import AWS_MODEL_DIR

MODEL_13 = AWS_MODEL_DIR / "AnOnlineShop_13.json"


@pytest.mark.parametrize("name", sorted(p.name for p in AWS_MODEL_DIR.glob("*.json")))
def test_every_aws_model_file_validates(name: str) -> None:
    parsed = parse_document(json.loads((AWS_MODEL_DIR / name).read_text()))
    assert len(parsed.items) == len(parsed.raw_items)


def test_facets_file_is_the_union_of_its_facets() -> None:
    parsed = parse_document(json.loads((AWS_MODEL_DIR / "AnOnlineShop_facets.json").read_text()))
    assert parsed.by_entity["payment"] == 2 and sum(parsed.by_entity.values()) == 20


def test_import_facets_file_serves_patterns(shop_table: str) -> None:
    call_command("import_workbench", str(AWS_MODEL_DIR / "AnOnlineShop_facets.json"), stdout=StringIO())
    customer = ap.customer_by_id(customer_id="12345")
    assert customer is not None and customer.name == "Samaneh"
    assert len(ap.inventory_for_warehouse(warehouse_id="12376").items) == 1


def _document(items: list[dict[str, Any]]) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(MODEL_13.read_text())
    document["DataModel"][0]["TableData"] = items
    return document


GOOD: dict[str, Any] = {"PK": {"S": "c#1"}, "SK": {"S": "c#1"}, "EntityType": {"S": "customer"}, "Name": {"S": "A"}}
BAD_ITEMS: dict[str, dict[str, Any]] = {
    "no EntityType": {"PK": {"S": "c#1"}, "SK": {"S": "c#1"}},
    "unknown EntityType": {**GOOD, "EntityType": {"S": "dragon"}},
    "keys do not fit the entity": {**GOOD, "PK": {"S": "o#1"}, "SK": {"S": "o#1"}},
    "missing SK": {"PK": {"S": "c#1"}, "EntityType": {"S": "customer"}},
    "not a type descriptor": {**GOOD, "Name": "plain"},
    "bad number": {**GOOD, "Extra": {"N": "twelve"}},
    "wrong type for the model": {
        "PK": {"S": "p#1"},
        "SK": {"S": "w#1"},
        "EntityType": {"S": "warehouseItem"},
        "Quantity": {"S": "lots"},
    },
    "bad id": {**GOOD, "PK": {"S": "c#a b"}, "SK": {"S": "c#a b"}},
}


@pytest.mark.parametrize("problem", sorted(BAD_ITEMS))
def test_malformed_items_are_refused(problem: str) -> None:
    with pytest.raises(WorkbenchError):
        parse_document(_document([GOOD, BAD_ITEMS[problem]]))


@pytest.mark.parametrize(
    "document",
    [
        [],
        {"DataModel": "x"},
        {"nothing": 1},
        {"DataModel": [{"KeyAttributes": {"PartitionKey": {"AttributeName": "id"}}}]},
    ],
)
def test_not_a_workbench_model(document: object) -> None:
    with pytest.raises(WorkbenchError):
        parse_document(document)


def test_malformed_file_writes_nothing(shop_table: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_document([GOOD, BAD_ITEMS["bad number"]])))
    with pytest.raises(CommandError, match=r"TableData\[1\]"):
        call_command("import_workbench", str(bad))
    assert ap.customer_by_id(customer_id="1") is None
    truncated = tmp_path / "truncated.json"
    truncated.write_text(MODEL_13.read_text()[:500])
    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("import_workbench", str(truncated))
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_workbench", str(tmp_path / "missing.json"))
    out = StringIO()
    call_command("import_workbench", str(MODEL_13), "--dry-run", stdout=out)
    assert "nothing written" in out.getvalue() and ap.customer_by_id(customer_id="12345") is None
