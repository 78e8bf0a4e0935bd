"""The returns service's side of a workload: returns in every status and refunds, written into the returns table
as another service writes them (plain PutItem, UpdateItem and DeleteItem in the shapes of ``docs/returns.md``),
step by step beside the shop's own writes so that records of both streams interleave; and the figures they imply,
counted from a scan of the returns table (the oracle the view's figures are compared with)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from decimal import Decimal
from typing import Any

from adminview.reads import number_reads
from adminview.repair.table_walk import parallel_scan
from dynamo import ddb_json
from dynamo.client import client_of
from returns.models import ReturnsItem
from tests.adminview.figures_oracle import units_back

# how a return moves on, one step at a time (REJECTED and REFUNDED are where it stays)
NEXT = {"REQUESTED": "APPROVED", "APPROVED": "RECEIVED", "RECEIVED": "REFUNDED"}
STATUSES = ("REQUESTED", "APPROVED", "REJECTED", "RECEIVED", "REFUNDED")


def S(value: str) -> dict[str, str]:
    return {"S": value}


def _client() -> tuple[Any, str]:
    return client_of(ReturnsItem), str(ReturnsItem.Meta.table_name)


def put_return(rid: str, oid: str, cid: str, status: str, requested: str, *lines: tuple[str, str]) -> None:
    """A return (``PK`` = ``SK`` = ``r#<rid>``, listed under its order in GSI1) with ``(product, quantity)`` lines."""
    client, table = _client()
    item = {
        "PK": S("r#" + rid), "SK": S("r#" + rid), "GSI1-PK": S("o#" + oid), "GSI1-SK": S("r#" + rid),
        "EntityType": S("return"), "OrderId": S(oid), "CustomerId": S(cid), "Status": S(status),
        "Requested": S(requested),
        "Lines": {"L": [{"M": {"ProductId": S(p), "Quantity": S(q), "Reason": S("too big")}} for p, q in lines]},
    }  # fmt: skip
    client.put_item(TableName=table, Item=item)


def put_refund(fid: str, oid: str, amount: str, when: str, return_id: str | None = None) -> None:
    """A refund of an order (``PK`` ``o#<oid>``, ``SK`` ``f#<fid>``), of a return when ``return_id`` is given."""
    client, table = _client()
    item = {
        "PK": S("o#" + oid), "SK": S("f#" + fid), "EntityType": S("refund"), "Amount": S(amount), "Date": S(when),
        "Reference": S("PSP-" + fid),
    }  # fmt: skip
    if return_id:
        item["ReturnId"] = S(return_id)
    client.put_item(TableName=table, Item=item)


def set_status(rid: str, status: str) -> None:
    client, table = _client()
    client.update_item(
        TableName=table,
        Key=ddb_json.key("r#" + rid, "r#" + rid),
        UpdateExpression="SET #s = :s",
        ExpressionAttributeNames={"#s": "Status"},
        ExpressionAttributeValues={":s": S(status)},
    )


def delete_refund(oid: str, fid: str) -> None:
    client, table = _client()
    client.delete_item(TableName=table, Key=ddb_json.key("o#" + oid, "f#" + fid))


def returns_step(n: int, prefix: str, *, order_of: str | None = None) -> None:
    """Step ``n`` of the returns side (a cycle of five): a new return (its first status taken in turn from every
    status), the return before it moved on, a refund (of a return every other time), that refund's amount
    changed, and every other cycle a refund taken back. ``order_of`` names the order its returns and refunds are
    of (so they share the order's partition key with the shop's items), by default one of the prefix's own."""
    oid = order_of or f"{prefix}o{n % 7}"
    day = f"2026-06-0{1 + n % 5}T1{n % 10}:00:00"
    cycle, step = divmod(n, 5)
    rid, fid = f"{prefix}r{cycle}", f"{prefix}f{cycle}"
    if step == 0:
        product = f"200{1 + cycle % 3}"
        put_return(rid, oid, f"100{1 + cycle % 3}", STATUSES[cycle % 5], day, (product, str(1 + cycle % 2)))
    elif step == 1:
        found = _status(rid)
        if found in NEXT:
            set_status(rid, NEXT[found])
    elif step == 2:
        put_refund(fid, oid, f"{1 + cycle % 9}.25", day, rid if cycle % 2 else None)
    elif step == 3:
        put_refund(fid, oid, f"{2 + cycle % 7}.50", day, rid if cycle % 2 else None)
    elif cycle % 2:
        delete_refund(oid, fid)


def _status(rid: str) -> str | None:
    client, table = _client()
    found = client.get_item(TableName=table, Key=ddb_json.key("r#" + rid, "r#" + rid), ConsistentRead=True)
    return ddb_json.string(found.get("Item"), "Status")


def expected() -> dict[str, Any]:
    """From a scan of the returns table: per UTC day the refunds dated then (count, amount, the part of it for
    returns), and per product [units received back, restocked, damaged]."""
    items = parallel_scan(ReturnsItem)  # decoded
    days: dict[str, list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 3)
    units: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for item in items:
        if item.get("EntityType") == "refund" and item.get("Date"):
            amount = Decimal(str(item.get("Amount", "0")))
            row = days[str(item["Date"])[:10]]
            row[0] += 1
            row[1] += amount
            if item.get("ReturnId"):
                row[2] += amount
        elif item.get("EntityType") == "return":
            for product, figures in units_back(item).items():
                units[product] = [a + b for a, b in zip(units[product], figures, strict=True)]
    return {"days": dict(days), "units": dict(units)}


def assert_returns_figures_match() -> None:
    """Refunds per day (over the days the table's refunds are dated) and each product's returned units equal the
    oracle's; there was something to count."""
    oracle = expected()
    assert oracle["days"] or any(u[0] for u in oracle["units"].values()), "the workload wrote nothing to count"
    if oracle["days"]:
        first, last = (date.fromisoformat(d) for d in (min(oracle["days"]), max(oracle["days"])))
        for row in number_reads.refunds_daily(start=first, end=last):
            want = oracle["days"].get(row.day.isoformat(), [Decimal(0)] * 3)
            assert [row.refunds, row.refunded, row.for_returns] == [int(want[0]), want[1], want[2]], row
    for product, figures in oracle["units"].items():
        got = number_reads.returned(product_id=product)
        assert [got.units, got.restocked, got.damaged] == figures, product
