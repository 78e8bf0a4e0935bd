"""The source partitions one order's view items follow from, read together for the consistency page and its
repair: in each source's table, the partitions its source says are keyed by the order, and those an index Query
names (``Source.order_partitions``: the shop's ``o#<oid>``; the returns table's ``o#<oid>`` and each return's
``r#<rid>``, which its GSI1 names).

The index Queries come before anything else is read; a GSI is eventually consistent, so a partition written a
moment ago may be left out of one look (the next one has it). An order has few: each costs one Query of its
partition (``repair.read_partitions`` reads the anchors and the view items of all the partitions together).
"""

from __future__ import annotations

from adminview.core import values
from adminview.core.schema import PK
from adminview.core.sources import sources
from adminview.core.sources.shared import IndexLookup
from adminview.repair import repair
from adminview.repair.table_walk import Table, source_table
from dynamo import ddb_json, item_codec
from dynamo.paging import raw_items
from shop import keys


def looked_up(table: Table, lookup: IndexLookup) -> list[str]:
    """The partition keys an index names (one Query, keys only)."""
    found = raw_items(
        table.client,
        "query",
        TableName=table.name,
        IndexName=lookup.index,
        KeyConditionExpression="#at = :value",
        ProjectionExpression="#pk",
        ExpressionAttributeNames={"#at": lookup.attribute, "#pk": PK},
        ExpressionAttributeValues={":value": ddb_json.s(lookup.value)},
    )
    pks = (values.string(item_codec.decode(item), PK) for item in found)
    return sorted({pk for pk in pks if pk is not None and lookup.names_partition(pk)})


def wanted(order_id: str) -> list[repair.Wanted]:
    """The order's source partitions, source by source. A table whose index cannot be queried because the table
    does not exist yet (nothing was ever written to it: no return, no refund) holds none."""
    oid = keys.bare(order_id, keys.ORDER)
    found: list[repair.Wanted] = []
    for source in sources():
        table, where = source_table(source), source.order_partitions(oid)
        try:
            more = looked_up(table, where.lookup) if where.lookup is not None else []
        except table.client.exceptions.ResourceNotFoundException:
            continue
        found += [repair.Wanted(table, source, pk) for pk in (*where.pks, *more)]
    return found


def read(view: Table, order_id: str) -> list[repair.Reading]:
    """Every source partition of the order, in the protocol's order (``adminview.repair.repair``)."""
    return repair.read_partitions(view, wanted(order_id))
