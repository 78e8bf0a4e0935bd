"""The naive ways, each page's figures without the admin view: a full Scan of the shop table and a filter (pending
orders, a customer's invoices), a full Scan that sums (the stats pages), one GetItem per buyer (a product's buyers).
They run last in a benchmark: at 100,000 orders one Scan takes many minutes on DynamoDB Local."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench import stats_pages
from bench.measure import repeat
from bench.stages import INVOICE_YEAR, Subjects
from dynamo import ddb_json
from dynamo.client import client_of
from shop import keys
from shop.keys import OrderStatus
from shop.models import SHOP_TABLE


def _scan(
    filter_expression: str,
    names: dict[str, str],
    values: dict[str, Any],
    *,
    sums: stats_pages.Sums | None = None,
    keep: Callable[[dict[str, Any]], bool] | None = None,
) -> dict[str, Any]:
    """What a generic DynamoDB browser does: Scan the whole shop table (1 MB pages, one after another), filter.
    With ``sums``, every order and order item matched is summed there as it comes; ``keep`` chooses the matched
    items kept in the answer (default: all)."""
    client = client_of(SHOP_TABLE.model)
    name = str(SHOP_TABLE.model.Meta.table_name)
    kwargs: dict[str, Any] = {
        "TableName": name,
        "FilterExpression": filter_expression,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }
    matched: list[dict[str, Any]] = []
    scanned = 0
    while True:
        response = client.scan(**kwargs)
        for item in response.get("Items", []):
            if sums is not None and sums.wants(item):
                sums.add(item)
            if keep is None or keep(item):
                matched.append(item)
        scanned += response.get("ScannedCount", 0)
        if "LastEvaluatedKey" not in response:
            break
        kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]
    return {"matched": matched, "extra": {"items_read": scanned, "matched": len(matched)}}


def _is_pending_order(item: dict[str, Any]) -> bool:
    return ddb_json.string(item, "EntityType") == "order" and (
        ddb_json.string(item, "Status") == OrderStatus.PENDING.value
    )


def naive_pending() -> dict[str, Any]:
    result = _scan(
        "#t = :t AND #s = :s",
        {"#t": "EntityType", "#s": "Status"},
        {":t": ddb_json.s("order"), ":s": ddb_json.s(OrderStatus.PENDING.value)},
    )
    result["matched"].sort(key=lambda item: ddb_json.string(item, "Date") or "", reverse=True)
    return result


def naive_invoices(customer_id: str) -> dict[str, Any]:
    from shop.timestamps import range_bounds

    low, high = range_bounds(*INVOICE_YEAR)
    return _scan(
        "#t = :t AND #pk = :c AND #sk BETWEEN :a AND :b",
        {"#t": "EntityType", "#pk": "GSI2-PK", "#sk": "GSI2-SK"},
        {
            ":t": ddb_json.s("invoice"),
            ":c": ddb_json.s(keys.customer(customer_id)),
            ":a": ddb_json.s(keys.invoice_date(low)),
            ":b": ddb_json.s(keys.invoice_date(high)),
        },
    )


def naive_buyers(product_id: str) -> dict[str, Any]:
    """The seed's way: every order item of the product (GSI1, all pages), then one GetItem per distinct buyer."""
    client = client_of(SHOP_TABLE.model)
    name = str(SHOP_TABLE.model.Meta.table_name)
    kwargs: dict[str, Any] = {
        "TableName": name,
        "IndexName": "GSI1",
        "KeyConditionExpression": "#pk = :p",
        "ExpressionAttributeNames": {"#pk": "GSI1-PK"},
        "ExpressionAttributeValues": {":p": ddb_json.s(keys.product(product_id))},
    }
    buyers: list[str] = []
    while True:
        response = client.query(**kwargs)
        for item in response.get("Items", []):
            cid = ddb_json.string(item, "GSI2-PK")
            if cid and cid not in buyers:
                buyers.append(cid)
        if "LastEvaluatedKey" not in response:
            break
        kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]
    profiles = [client.get_item(TableName=name, Key=ddb_json.key(cid, cid)).get("Item") for cid in buyers]
    return {"extra": {"buyers": len(profiles)}}


def naive_stats(sums: list[stats_pages.Sums]) -> dict[str, Any]:
    """Every stats page's figures from one Scan of the orders and order items, summed in Python (appended to
    ``sums``, so the figures can be checked against the pages' afterwards)."""
    summed = stats_pages.Sums()
    result = _scan(
        "#t IN (:o, :l)",
        {"#t": "EntityType"},
        {":o": ddb_json.s("order"), ":l": ddb_json.s("orderItem")},
        sums=summed,
        keep=lambda item: False,
    )
    sums.append(summed)
    result["extra"] |= {"matched": len(summed.orders) + sum(len(lines) for lines in summed.lines.values())}
    return result


def naive_both(customer_id: str, sums: list[stats_pages.Sums]) -> dict[str, Any]:
    """Pending orders, the invoices and the stats pages' sums from ONE Scan with the filters OR-ed: a
    FilterExpression is applied after the read, so this Scan reads and bills exactly what each of the separate
    Scans would (``--shared-scan``, for big tables on DynamoDB Local, whose Scan pages get slower the deeper they
    are)."""
    from shop.timestamps import range_bounds

    low, high = range_bounds(*INVOICE_YEAR)
    summed = stats_pages.Sums()
    result = _scan(
        "#t IN (:o, :l) OR (#t = :i AND #pk = :c AND #sk BETWEEN :a AND :b)",
        {"#t": "EntityType", "#pk": "GSI2-PK", "#sk": "GSI2-SK"},
        {
            ":o": ddb_json.s("order"),
            ":l": ddb_json.s("orderItem"),
            ":i": ddb_json.s("invoice"),
            ":c": ddb_json.s(keys.customer(customer_id)),
            ":a": ddb_json.s(keys.invoice_date(low)),
            ":b": ddb_json.s(keys.invoice_date(high)),
        },
        sums=summed,
        keep=lambda item: _is_pending_order(item) or ddb_json.string(item, "EntityType") == "invoice",
    )
    sums.append(summed)
    pending = [i for i in result["matched"] if ddb_json.string(i, "EntityType") == "order"]
    result["extra"] |= {
        "matched_pending": len(pending),
        "matched_invoices": len(result["matched"]) - len(pending),
        "matched_stats": len(summed.orders) + sum(len(lines) for lines in summed.lines.values()),
        "shared_scan": True,
    }
    return result


def naive(subjects: Subjects, *, repeats: int, shared_scan: bool = False) -> dict[str, dict[str, Any]]:
    """The naive ways. The four stats pages share one Scan that sums what each shows (each page alone would
    read the same: every item); with ``shared_scan`` every Scan baseline is that one Scan. Whether the Scan's
    figures equal the pages' is noted (``agrees_with_view``; checked after the timed runs)."""
    sums: list[stats_pages.Sums] = []
    if shared_scan:
        every = repeat(lambda: naive_both(subjects.customer_id, sums), repeats, warmup=0)
        scanned = {
            "pending": every | {"matched": every["matched_pending"]},
            "invoices": every | {"matched": every["matched_invoices"]},
        }
        summed = every | {"matched": every["matched_stats"]}
    else:
        scanned = {
            "pending": repeat(naive_pending, repeats, warmup=0),
            "invoices": repeat(lambda: naive_invoices(subjects.customer_id), repeats, warmup=0),
        }
        summed = repeat(lambda: naive_stats(sums), repeats, warmup=0)
    summed |= {"agrees_with_view": sums[-1].figures() == stats_pages.kept_figures(), "one_scan_for_stats": True}
    buyers = {"buyers": repeat(lambda: naive_buyers(subjects.product_id), repeats, warmup=0)}
    return scanned | buyers | dict.fromkeys(stats_pages.SUMMED, summed)
