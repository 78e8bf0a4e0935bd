"""Import a NoSQL Workbench data model's items (``DataModel[*].TableData``, or the union of its
``TableFacets[*].TableData``) into the shop table. Everything is validated before anything is written: a malformed
file is refused as a whole, with the position of the first problem.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from dynamo import item_codec
from dynamo.batch import batch_write, put_request
from dynamo.client import client_of
from shop import keys
from shop.models import ShopItem

MAX_FILE_BYTES = 50 * 1024 * 1024
_SCALAR_TYPES = {"S", "N", "B", "BOOL", "NULL"}
_ALL_TYPES = _SCALAR_TYPES | {"M", "L", "SS", "NS", "BS"}

# Which key prefixes each entity type must have (PK, SK); None: PK and SK must be equal.
_KEY_SHAPES: dict[str, tuple[str, str | None]] = {
    "customer": (keys.CUSTOMER, None),
    "product": (keys.PRODUCT, None),
    "warehouse": (keys.WAREHOUSE, None),
    "warehouseItem": (keys.PRODUCT, keys.WAREHOUSE),
    "order": (keys.ORDER, keys.CUSTOMER),
    "orderItem": (keys.ORDER, keys.PRODUCT),
    "invoice": (keys.ORDER, keys.INVOICE),
    "shipment": (keys.ORDER, keys.SHIPMENT),
    "shipmentItem": (keys.ORDER, keys.SHIPMENT_ITEM),
    "payment": (keys.ORDER, keys.PAYMENT),
    "favourite": (keys.CUSTOMER, keys.FAVOURITE),
}


class WorkbenchError(ValueError):
    """The file is not a usable NoSQL Workbench model; nothing was written."""


@dataclass(frozen=True)
class ParsedModel:
    items: list[ShopItem]  # validated models (what our code will read back)
    raw_items: list[dict[str, Any]]  # exactly as in the file (what gets written)
    by_entity: dict[str, int]


def _check_value(value: Any, where: str) -> None:
    if not isinstance(value, dict) or len(value) != 1:
        raise WorkbenchError(f'{where}: expected one DynamoDB type descriptor like {{"S": ...}}, got {value!r:.80}')
    ((kind, inner),) = value.items()
    if kind not in _ALL_TYPES:
        raise WorkbenchError(f"{where}: unknown DynamoDB type {kind!r}")
    if kind == "S" and not isinstance(inner, str):
        raise WorkbenchError(f"{where}: S value must be a string")
    if kind == "N":
        try:
            Decimal(str(inner))
        except InvalidOperation as exc:
            raise WorkbenchError(f"{where}: N value {inner!r} is not a number") from exc
    if kind == "BOOL" and not isinstance(inner, bool):
        raise WorkbenchError(f"{where}: BOOL value must be true or false")
    if kind == "M":
        if not isinstance(inner, dict):
            raise WorkbenchError(f"{where}: M value must be an object")
        for name, sub in inner.items():
            _check_value(sub, f"{where}.{name}")
    if kind == "L":
        if not isinstance(inner, list):
            raise WorkbenchError(f"{where}: L value must be a list")
        for i, sub in enumerate(inner):
            _check_value(sub, f"{where}[{i}]")
    if kind in {"SS", "NS", "BS"} and (not isinstance(inner, list) or not inner):
        raise WorkbenchError(f"{where}: {kind} value must be a non-empty list")


def _check_item(raw: Any, where: str) -> ShopItem:
    if not isinstance(raw, dict):
        raise WorkbenchError(f"{where}: an item must be an object of attributes")
    for name, value in raw.items():
        _check_value(value, f"{where} attribute {name}")
    plain = item_codec.decode(raw)
    pk, sk, entity = (plain.get(name) for name in ("PK", "SK", keys.ENTITY_TYPE))
    if not pk or not sk or not isinstance(pk, str) or not isinstance(sk, str):
        raise WorkbenchError(f"{where}: PK and SK must both be present as strings")
    # our bookkeeping entities (audit entries, email claims) are never imported
    if not isinstance(entity, str) or entity not in _KEY_SHAPES:
        raise WorkbenchError(f"{where} ({pk} / {sk}): EntityType {entity!r} is not one of {', '.join(_KEY_SHAPES)}")
    pk_prefix, sk_prefix = _KEY_SHAPES[entity]
    try:
        keys.bare(pk, pk_prefix)
        if sk_prefix is None:
            if sk != pk:
                raise WorkbenchError(f"{where}: a {entity} must have SK equal to PK ({pk!r}), got {sk!r}")
        else:
            keys.bare(sk, sk_prefix)
        if not pk.startswith(pk_prefix) or not sk.startswith(sk_prefix or pk_prefix):
            raise WorkbenchError(
                f"{where}: a {entity} has keys {pk_prefix}... / {sk_prefix or pk_prefix}..., got {pk!r} / {sk!r}"
            )
    except keys.InvalidId as exc:
        raise WorkbenchError(f"{where}: {exc}") from exc
    try:
        item = ShopItem.from_raw_data(raw)  # the EntityType's model
        item.serialize(null_check=True)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise WorkbenchError(f"{where} ({pk} / {sk}): {exc}") from exc
    return item


def _tables(document: Any) -> list[dict[str, Any]]:
    if not isinstance(document, dict) or not isinstance(document.get("DataModel"), list):
        raise WorkbenchError('not a NoSQL Workbench model: no "DataModel" list at the top level')
    tables: list[dict[str, Any]] = document["DataModel"]
    for i, table in enumerate(tables):
        if not isinstance(table, dict):
            raise WorkbenchError(f"DataModel[{i}] is not an object")
        key_attrs = table.get("KeyAttributes", {})
        names = tuple(key_attrs.get(k, {}).get("AttributeName") for k in ("PartitionKey", "SortKey"))
        if names != ("PK", "SK"):
            raise WorkbenchError(
                f"DataModel[{i}] ({table.get('TableName')}) is keyed {names}, not PK/SK: "
                "not the online-shop single table"
            )
    return tables


def parse_document(document: Any) -> ParsedModel:
    """Validate every item of a Workbench document; raises WorkbenchError at the first problem."""
    items: dict[tuple[str, str], ShopItem] = {}
    raws: dict[tuple[str, str], Any] = {}
    for t, table in enumerate(_tables(document)):
        sources: list[tuple[str, Any]] = []
        if "TableData" in table:
            sources.append((f"DataModel[{t}].TableData", table["TableData"]))
        for f, facet in enumerate(table.get("TableFacets") or []):
            if isinstance(facet, dict) and "TableData" in facet:
                sources.append(
                    (f"DataModel[{t}].TableFacets[{f}] ({facet.get('FacetName')}).TableData", facet["TableData"])
                )
        for where, data in sources:
            if not isinstance(data, list):
                raise WorkbenchError(f"{where} is not a list of items")
            for i, raw in enumerate(data):
                item = _check_item(raw, f"{where}[{i}]")
                if item.key in raws and raws[item.key] != raw:
                    raise WorkbenchError(f"{where}[{i}]: {item.pk} / {item.sk} appears twice with different values")
                items[item.key] = item
                raws[item.key] = raw
    counts = Counter(str(item_codec.decode_value(raw[keys.ENTITY_TYPE])) for raw in raws.values())
    return ParsedModel(items=list(items.values()), raw_items=list(raws.values()), by_entity=dict(counts))


def parse_file(path: Path) -> ParsedModel:
    if not path.exists():
        raise WorkbenchError(f"{path}: no such file")
    if not path.is_file():
        raise WorkbenchError(f"{path}: not a file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise WorkbenchError(f"{path}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise WorkbenchError(f"{path}: not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise WorkbenchError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    return parse_document(document)


def import_items(parsed: ParsedModel, *, on_chunk: Callable[[int], None] | None = None) -> int:
    """Write the items as they are in the file (attributes we do not model kept), with BatchWriteItem."""
    return batch_write(
        client_of(ShopItem),
        str(ShopItem.Meta.table_name),
        (put_request(raw) for raw in parsed.raw_items),
        key_names=("PK", "SK"),
        on_chunk=on_chunk,
    )
