"""The source partitions one order's view items follow from, read together for the consistency page and its
repair: the shop table's ``o#<oid>`` (the order, its lines, invoices, shipments and audit entries), the returns
table's ``o#<oid>`` (the order's refunds; the refunded total beside them, which the view does not project, implies
nothing) and each of the order's returns, ``r#<rid>``.

The returns are found through the returns table's GSI1 (``GSI1-PK`` = ``o#<oid>``), keys only, before anything
else is read; GSI1 is eventually consistent, so a return written a moment ago may be left out of one look (the
next one has it). An order has few returns: each costs one Query of its partition (``repair.read_partitions``
reads the anchors and the view items of all the partitions together).
"""

from __future__ import annotations

from adminview.core.sources import returns as returns_source
from adminview.core.sources import shop as shop_source
from adminview.repair import repair
from adminview.repair.table_walk import Table, source_table
from dynamo import ddb_json
from dynamo.paging import raw_items
from returns import keys as return_keys
from returns.models import GSI1, ReturnsItem
from shop import keys


def return_partitions(table: Table, order_id: str) -> list[str]:
    """The partition keys of the order's returns, by the returns table's GSI1 (one Query, keys only)."""
    found = raw_items(
        table.client,
        "query",
        TableName=table.name,
        IndexName=GSI1.Meta.index_name,
        KeyConditionExpression="#pk = :pk",
        ProjectionExpression="#key",
        ExpressionAttributeNames={"#pk": GSI1.gsi1_pk.attr_name, "#key": ReturnsItem.pk.attr_name},
        ExpressionAttributeValues={":pk": ddb_json.s(return_keys.order(order_id))},
    )
    pks = (ddb_json.string(item, ReturnsItem.pk.attr_name) for item in found)
    return sorted({pk for pk in pks if pk is not None and return_keys.return_id_of(pk)})


def wanted(order_id: str) -> list[repair.Wanted]:
    """The order's source partitions, the shop's first. Without a returns table (not created yet: nothing was
    ever returned or refunded), only the shop's."""
    oid = keys.bare(order_id, keys.ORDER)
    shop = repair.Wanted(source_table(shop_source.SOURCE), shop_source.SOURCE, keys.order(oid))
    table = source_table(returns_source.SOURCE)
    try:
        returns = return_partitions(table, oid)
    except table.client.exceptions.ResourceNotFoundException:
        return [shop]
    refunds = repair.Wanted(table, returns_source.SOURCE, return_keys.order(oid))
    return [shop, refunds, *(repair.Wanted(table, returns_source.SOURCE, pk) for pk in returns)]


def read(view: Table, order_id: str) -> list[repair.Reading]:
    """Every source partition of the order, in the protocol's order (``adminview.repair.repair``)."""
    return repair.read_partitions(view, wanted(order_id))
