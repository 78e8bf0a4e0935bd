"""Each record is read for what it is (eventName, StreamViewType), in AWS's published sample event shape."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from adminview.core.records import UnusableRecord, check
from adminview.repair import rebuild
from adminview.sync import sync_store
from adminview.sync.handler import handler
from dynamo import ddb_json
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview.core.samples import sample_event, sample_record, shaped
from tests.adminview.streams import delete_order, new_records
from tests.adminview_helpers import sync_now, view_count, view_item

pytestmark = pytest.mark.ddb_local


def _of(records: list[dict[str, Any]], event: str, pk: str, sk: str = "c#1001") -> dict[str, Any]:
    return next(
        r
        for r in records
        if r["eventName"] == event and r["dynamodb"]["Keys"]["PK"]["S"] == pk and r["dynamodb"]["Keys"]["SK"]["S"] == sk
    )


def test_the_published_sample_records_pass_the_check() -> None:
    assert [check(r) for r in sample_event()["Records"]] == ["INSERT", "MODIFY", "REMOVE"]
    null = sample_record("MODIFY") | {"dynamodb": None}
    with pytest.raises(UnusableRecord, match="no 'dynamodb' part \\(null\\)"):
        check(null)


def test_records_in_the_sample_shape_apply(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o2")
    orders.order_ship(order_id="o1")
    delete_order("o2")
    records = [shaped(r) for r in new_records()]
    assert {r["eventName"] for r in records} == {"INSERT", "MODIFY", "REMOVE"}
    assert all(r["eventSource"] == "aws:dynamodb" and r["eventVersion"] == "1.1" for r in records)
    assert handler({"Records": records}) == {"batchItemFailures": []}
    assert ddb_json.string(view_item("o#o1", "#order"), "Status") == "SHIPPED"
    assert view_count("o#o2") == 0
    assert rebuild.verify().clean


def test_unusable_records_fail_alone_with_their_cause_and_are_kept_whole(
    shop_table: str, admin_view_table: str
) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o2")
    sync_now()
    orders.order_ship(order_id="o1")
    delete_order("o2")
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o3")
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o4")
    records = new_records()
    shipped, removed, inserted = (
        _of(records, "MODIFY", "o#o1"),
        _of(records, "REMOVE", "o#o2"),
        _of(records, "INSERT", "o#o3"),
    )
    good = [r for r in records if r["dynamodb"]["Keys"]["PK"]["S"] == "o#o4"]
    no_body = {k: v for k, v in sample_record("MODIFY").items() if k != "dynamodb"} | {"eventID": "no-body"}
    unknown = copy.deepcopy(shipped) | {"eventName": "UPDATE", "eventID": "unknown-kind"}
    unknown["dynamodb"]["SequenceNumber"] = "1" + shipped["dynamodb"]["SequenceNumber"]
    cases: list[tuple[dict[str, Any], str, str]] = [
        (shaped(removed, view_type="KEYS_ONLY", images=()), "REMOVE record without OldImage", "KEYS_ONLY"),
        (shaped(removed, view_type="NEW_IMAGE", images=()), "REMOVE record without OldImage", "NEW_IMAGE"),
        (shaped(shipped, view_type="OLD_IMAGE", images=("OldImage",)), "MODIFY record without NewImage", "OLD_IMAGE"),
        (shaped(shipped, view_type="NEW_IMAGE", images=("NewImage",)), "MODIFY record without OldImage", "NEW_IMAGE"),
        (shaped(inserted, view_type="KEYS_ONLY", images=()), "INSERT record without NewImage", "KEYS_ONLY"),
        (sample_record("MODIFY") | {"dynamodb": None, "eventID": "null-body"}, "no 'dynamodb' part (null)", ""),
        (no_body, "no 'dynamodb' part (missing)", ""),
        (unknown, "unknown eventName 'UPDATE'", ""),
    ]
    for bad, cause, view_type in cases:
        response = handler({"Records": [bad, *good]})
        expected = bad["dynamodb"]["SequenceNumber"] if isinstance(bad.get("dynamodb"), dict) else bad["eventID"]
        assert response == {"batchItemFailures": [{"itemIdentifier": expected}]}, cause
        letter = sync_store.dead_letter(sync_store.dead_letter_key(bad))
        assert letter is not None and letter.record == bad, cause
        assert cause in letter.error
        if view_type:
            assert f"view type is {view_type}, the sync needs NEW_AND_OLD_IMAGES" in letter.error
    garbage = handler({"Records": ["not a record", *good]})
    assert garbage == {"batchItemFailures": [{"itemIdentifier": ""}]}  # Lambda then retries the whole batch
    kept = sync_store.dead_letter(sync_store.dead_letter_key("not a record"))
    assert kept is not None and kept.error == "stream record is not an object (str)"
    assert handler({"Records": None}) == handler({}) == {"batchItemFailures": []}
    assert ddb_json.string(view_item("o#o4", "#order"), "Status") == "PENDING"  # the rest of each batch applied
    assert ddb_json.string(view_item("o#o1", "#order"), "Status") == "PENDING"  # nothing guessed from a half record
    assert ddb_json.string(view_item("o#o2", "#order"), "Status") == "PENDING"
    shipped_letter = sync_store.dead_letter(sync_store.dead_letter_key(shipped))
    assert shipped_letter is not None and shipped_letter.attempts == 2  # failed twice (OLD_IMAGE, NEW_IMAGE)

    # the stream fixed (NEW_AND_OLD_IMAGES): the same records apply and their dead letters are cleared
    assert handler({"Records": [shipped, removed]}) == {"batchItemFailures": []}
    assert ddb_json.string(view_item("o#o1", "#order"), "Status") == "SHIPPED"
    assert view_count("o#o2", sk="#order") == 0
    assert sync_store.dead_letter(sync_store.dead_letter_key(shipped)) is None
    assert sync_store.dead_letter(sync_store.dead_letter_key(removed)) is None
