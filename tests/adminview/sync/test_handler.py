from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse
from botocore.compat import HTTPHeaders
from django.core.management import call_command

from adminview.repair import rebuild
from adminview.sync import sync_store
from adminview.sync.handler import handler
from adminview.tables import ViewItem
from dynamo import ddb_json
from dynamo.client import client_of
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview.streams import new_records
from tests.adminview_helpers import break_projection_of, sync_now, view_count, view_item


def test_poison_record_is_dead_lettered_while_the_rest_applies(
    shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="good")
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="bad")
    break_projection_of(monkeypatch, "o#bad")
    stats = sync_now(sleep=lambda _s: None)
    assert stats.dead_lettered == 3  # order, its item, its invoice
    assert ddb_json.string(view_item("o#good", "#order"), "Status") == "PENDING"
    assert view_count("o#bad") == 0
    letters = list(sync_store.dead_letters())
    assert len(letters) == 3 and all("simulated bug" in letter.error for letter in letters)
    assert sync_now().records == 0  # the checkpoint moved past them

    monkeypatch.undo()  # the fix is deployed
    call_command("adminview_deadletters", "replay")
    assert list(sync_store.dead_letters()) == []
    assert ddb_json.string(view_item("o#bad", "#order"), "Status") == "PENDING"
    assert sync_now().records == 3  # the replays' audit entries, projected like any shop item
    assert rebuild.verify().clean


def test_handler_reports_failures_by_sequence_number(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    records = new_records()
    broken = json.loads(json.dumps(records[0]))
    broken["dynamodb"]["SequenceNumber"] = "not-a-number"
    broken["eventID"] = "poison"
    response = handler({"Records": [broken, *records]})
    assert response == {"batchItemFailures": [{"itemIdentifier": "not-a-number"}]}
    assert handler({"Records": [broken]}) == {"batchItemFailures": [{"itemIdentifier": "not-a-number"}]}
    assert rebuild.verify().clean


class _Raw:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_: Any) -> Any:
        yield self.body


def test_unprocessed_items_and_throttling_are_retried(
    shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    factories.shop_with(customers=3, products=3)
    for n in range(12):
        orders.order_place(customer_id=f"100{1 + n % 3}", lines=[OrderLine(f"200{1 + n % 3}", 1)], order_id=f"o{n}")
    records = new_records()
    client = client_of(ViewItem)
    real_write = client.batch_write_item
    calls = {"unprocessed": 0, "throttled": 0}

    def half_done(**kwargs: Any) -> dict[str, Any]:
        ((table, requests),) = kwargs["RequestItems"].items()
        if calls["unprocessed"] < 3 and len(requests) > 1:
            calls["unprocessed"] += 1
            real_write(RequestItems={table: requests[:1]})
            return {"UnprocessedItems": {table: requests[1:]}}
        return dict(real_write(**kwargs))

    def throttle(request: Any, **_: Any) -> AWSResponse | None:
        if calls["throttled"] < 2:
            calls["throttled"] += 1
            body = b'{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate exceeded"}'
            headers = HTTPHeaders()
            headers["x-amzn-RequestId"] = "test"
            return AWSResponse(request.url, 400, headers, _Raw(body))
        return None

    monkeypatch.setattr(client, "batch_write_item", half_done)
    # a before-send handler answers in place of the network by returning a response; the stubs type handlers as
    # returning None
    client.meta.events.register("before-send.dynamodb.BatchWriteItem", throttle)  # type: ignore[arg-type]
    try:
        assert handler({"Records": records}) == {"batchItemFailures": []}
    finally:
        client.meta.events.unregister("before-send.dynamodb.BatchWriteItem", throttle)  # type: ignore[arg-type]
    assert calls == {"unprocessed": 3, "throttled": 2}
    assert rebuild.verify().clean
