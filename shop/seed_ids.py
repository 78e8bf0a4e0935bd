"""Where a seed run starts numbering: after the highest numeric id of each entity already in the shop table.

Finding that takes one parallel Scan of the keys: it runs for the operator's seed command only, never for a page.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

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


# Entity type -> (FirstIds field, key prefix of its PK).
_NUMBERED = {
    "customer": ("customer", keys.CUSTOMER),
    "product": ("product", keys.PRODUCT),
    "warehouse": ("warehouse", keys.WAREHOUSE),
    "order": ("order", keys.ORDER),
}


def next_ids() -> FirstIds:
    """Ids after the highest numeric id of each entity in the shop table (the fixed firsts when there is none
    above them). One parallel Scan of PK and EntityType: this is for the operator's seed command, never a page."""
    client, table = client_of(ShopItem), str(ShopItem.Meta.table_name)
    names = {"#pk": "PK", "#t": keys.ENTITY_TYPE}
    values = {f":{entity}": ddb_json.s(entity) for entity in _NUMBERED}

    def segment(n: int) -> dict[str, int]:
        highest: dict[str, int] = {}
        for raw in raw_items(
            client,
            "scan",
            TableName=table,
            Segment=n,
            TotalSegments=SCAN_SEGMENTS,
            ProjectionExpression="#pk, #t",
            FilterExpression=f"#t IN ({', '.join(values)})",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        ):
            plain = item_codec.decode(raw)
            field_name, prefix = _NUMBERED[str(plain[keys.ENTITY_TYPE])]
            bare = keys.without_prefix(str(plain["PK"]), prefix)
            if bare is not None and bare.isdigit():
                highest[field_name] = max(highest.get(field_name, 0), int(bare))
        return highest

    with ThreadPoolExecutor(max_workers=SCAN_SEGMENTS) as pool:
        found = list(pool.map(run_in_context(segment), range(SCAN_SEGMENTS)))
    defaults = FirstIds()
    return FirstIds(
        **{
            name: max([getattr(defaults, name)] + [part[name] + 1 for part in found if name in part])
            for name, _prefix in _NUMBERED.values()
        }
    )
