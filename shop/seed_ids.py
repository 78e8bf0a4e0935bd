"""Where a seed run starts numbering: after the highest numeric id of each entity in the shop table, found by one
parallel Scan of the keys (for operators only, never for a page)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from dynamo import ddb_json, item_codec
from dynamo.client import client_of
from dynamo.instrumentation import run_in_context
from dynamo.paging import raw_items
from shop import keys
from shop.models import ShopItem

FIRST_CUSTOMER, FIRST_PRODUCT, FIRST_WAREHOUSE, FIRST_ORDER = 100001, 20001, 301, 1000001
SCAN_SEGMENTS = 4


@dataclass(frozen=True)
class FirstIds:
    """The first id of each entity a plan writes: the fixed firsts on an empty table (``next_ids`` otherwise)."""

    customer: int = FIRST_CUSTOMER
    product: int = FIRST_PRODUCT
    warehouse: int = FIRST_WAREHOUSE
    order: int = FIRST_ORDER


# Entity type (also its FirstIds field) -> the key prefix of its PK.
_NUMBERED = {"customer": keys.CUSTOMER, "product": keys.PRODUCT, "warehouse": keys.WAREHOUSE, "order": keys.ORDER}


def scan_entities(entity_types: Sequence[str], attributes: Sequence[str]) -> list[dict[str, Any]]:
    """``attributes`` of the items of these entity types (decoded): one parallel Scan, for operators only."""
    client, table = client_of(ShopItem), str(ShopItem.Meta.table_name)
    names = {f"#a{i}": name for i, name in enumerate(dict.fromkeys([keys.ENTITY_TYPE, *attributes]))}
    values = {f":t{i}": ddb_json.s(entity) for i, entity in enumerate(entity_types)}

    def segment(n: int) -> list[dict[str, Any]]:
        found = raw_items(
            client,
            "scan",
            TableName=table,
            Segment=n,
            TotalSegments=SCAN_SEGMENTS,
            ProjectionExpression=", ".join(names),
            FilterExpression=f"#a0 IN ({', '.join(values)})",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )
        return [item_codec.decode(raw) for raw in found]

    with ThreadPoolExecutor(max_workers=SCAN_SEGMENTS) as pool:
        return [item for part in pool.map(run_in_context(segment), range(SCAN_SEGMENTS)) for item in part]


def next_ids() -> FirstIds:
    """Ids after the highest numeric id of each entity in the shop table (at least the fixed firsts)."""
    highest = {name: getattr(FirstIds(), name) - 1 for name in _NUMBERED}
    for plain in scan_entities(list(_NUMBERED), ["PK"]):
        name = str(plain[keys.ENTITY_TYPE])
        bare = keys.without_prefix(str(plain["PK"]), _NUMBERED[name])
        if bare is not None and bare.isdigit():
            highest[name] = max(highest[name], int(bare))
    return FirstIds(**{name: number + 1 for name, number in highest.items()})
