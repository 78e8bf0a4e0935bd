"""No record lost in Lambda mode: the handler keeps failed records whole, counts attempts, clears them once
applied; replay and the on-failure queue import work on the same store."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError
from django.core.management import CommandError, call_command

from adminview.reads import activity as staff_activity
from adminview.repair import rebuild
from adminview.sync import onfailure, sync_store
from adminview.sync.handler import handle_records, handler
from adminview.sync.poller import streams_client
from adminview.sync.replay import replay
from dynamo import ddb_json
from shop import keys, orders
from shop.audit import Actor
from shop.models import AuditEntry, ShopItem
from shop.orders import OrderLine
from tests import factories
from tests.adminview.streams import new_records
from tests.adminview_helpers import break_projection_of, sync_now, view_item

pytestmark = pytest.mark.ddb_local


def test_lambda_handler_keeps_failed_records_counts_attempts_and_clears_them(
    shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="good")
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="bad")
    records = new_records()
    bad = [r for r in records if r["dynamodb"]["Keys"]["PK"]["S"] == "o#bad"]
    break_projection_of(monkeypatch, "o#bad")

    _response, outcome = handle_records(records)
    assert outcome.dead_lettered == len(bad) == 3 and len(outcome.failed) == 3
    assert ddb_json.string(view_item("o#good", "#order"), "Status") == "PENDING"
    letters = list(sync_store.dead_letters())
    assert [letter.record for letter in letters] == bad  # whole: eventID, keys, images, seq, eventSourceARN
    assert all(letter.attempts == 1 and "simulated bug" in letter.error for letter in letters)
    assert all(letter.record["eventSourceARN"] for letter in letters)

    # Lambda retries the batch from the first failure: the same records fail again
    retry = handler({"Records": bad})
    assert [f["itemIdentifier"] for f in retry["batchItemFailures"]] == [r["dynamodb"]["SequenceNumber"] for r in bad]
    assert [letter.attempts for letter in sync_store.dead_letters()] == [2, 2, 2]

    monkeypatch.undo()  # the fix is deployed; Lambda's next retry applies them and clears the store
    _response, outcome = handle_records(bad)
    assert outcome.failed == {} and outcome.dead_lettered == 0
    assert list(sync_store.dead_letters()) == []
    assert rebuild.verify().clean


def test_replay_says_why_a_record_still_fails_and_exits_non_zero(
    shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="bad")
    break_projection_of(monkeypatch, "o#bad")
    handler({"Records": new_records()})
    capsys.readouterr()  # the handler's own log line and metrics
    call_command("adminview_deadletters", "list")
    listed = capsys.readouterr().out.splitlines()
    assert listed[-1] == "3 dead letter(s)" and all("attempts=1" in line for line in listed[:-1])
    assert all("[shop]" in line for line in listed[:-1])  # each says the source its record came from

    with pytest.raises(SystemExit) as stopped:
        call_command("adminview_deadletters", "replay")
    assert stopped.value.code == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and lines[-1] == "replayed 0, still failing 3"
    assert all(
        line.startswith("still failing: ") and "attempts=2" in line and "simulated bug" in line for line in lines[:3]
    )

    assert replay_trail() == []  # a replay that still fails changes nothing, so audits nothing

    monkeypatch.undo()
    letters = list(sync_store.dead_letters())
    call_command("adminview_deadletters", "replay", "--user", "ops")
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "replayed 3, still failing 0" and all(line.startswith("applied: ") for line in lines[:3])
    assert list(sync_store.dead_letters()) == []
    assert ddb_json.string(view_item("o#bad", "#order"), "Status") == "PENDING"
    trail = replay_trail()
    assert [(e.action, e.user, e.order_id) for e in trail] == [("replay", "ops", "bad")] * 3
    assert sorted(e.detail for e in trail) == sorted(letter.position for letter in letters)
    assert len({e.request_id for e in trail}) == 1 and trail[0].request_id.startswith("cli-")


def replay_trail() -> list[AuditEntry]:
    return [i for i in ShopItem.query(keys.SYSTEM_AUDIT) if isinstance(i, AuditEntry)]


def test_a_letter_replayed_twice_at_once_is_removed_and_audited_once(
    shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="bad")
    break_projection_of(monkeypatch, "o#bad")
    handler({"Records": new_records()})
    monkeypatch.undo()
    letter = next(sync_store.dead_letters())  # both staff loaded the page before either clicked
    first, second = replay(letter, Actor("ann")), replay(letter, Actor("bob"))
    assert first.ok and first.audited and first.line == f"applied: {letter.position}"
    assert second.ok and not second.audited and second.line.endswith("(already removed by another replay)")
    assert [e.user for e in replay_trail()] == ["ann"]
    assert sync_store.dead_letter(letter.key) is None
    assert all(replay(rest, Actor("ann")).audited for rest in sync_store.dead_letters())
    sync_now()  # the entries, in their own partition, project like any audit entry and verify like them
    assert [row.action for row in staff_activity.activity(user="ann").rows] == ["replay"] * 3
    assert rebuild.verify().clean


def test_user_goes_with_replay_only_and_is_checked_before_any_read() -> None:
    with pytest.raises(CommandError, match="--user goes with replay only"):
        call_command("adminview_deadletters", "list", "--user", "ops")
    with pytest.raises(CommandError, match="username is 1 to 150 characters"):
        call_command("adminview_deadletters", "replay", "--user", "x" * 151)  # no engine needed to refuse it


class FakeQueue:
    """The two SQS calls the import makes, on an in-memory queue (deleted messages disappear)."""

    def __init__(self, bodies: list[str]) -> None:
        self.messages = {f"m{n}": body for n, body in enumerate(bodies)}
        self.deleted: list[str] = []

    def receive_message(self, **kwargs: Any) -> dict[str, Any]:
        ids = list(self.messages)[: kwargs["MaxNumberOfMessages"]]
        return {"Messages": [{"MessageId": i, "ReceiptHandle": f"r-{i}", "Body": self.messages[i]} for i in ids]}

    def delete_message(self, **kwargs: Any) -> None:
        message_id = kwargs["ReceiptHandle"].removeprefix("r-")
        del self.messages[message_id]
        self.deleted.append(message_id)


def on_failure_body(arn: str, shard_id: str, first: dict[str, Any], last: dict[str, Any], size: int) -> str:
    """Lambda's on-failure record for a DynamoDB stream batch (what the event source mapping sends to SQS)."""
    return json.dumps(
        {
            "requestContext": {
                "requestId": "a-request",
                "condition": "RetryAttemptsExhausted",
                "approximateInvokeCount": 3,
            },
            "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
            "version": "1.0",
            "timestamp": "2026-11-23T13:00:00.000Z",
            "DDBStreamBatchInfo": {
                "shardId": shard_id,
                "startSequenceNumber": first["dynamodb"]["SequenceNumber"],
                "endSequenceNumber": last["dynamodb"]["SequenceNumber"],
                "approximateArrivalOfFirstRecord": "2026-11-23T12:59:00Z",
                "approximateArrivalOfLastRecord": "2026-11-23T12:59:01Z",
                "batchSize": size,
                "streamArn": arn,
            },
        }
    )


def test_on_failure_messages_become_dead_letters_read_back_from_the_stream(
    shop_table: str, admin_view_table: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from dynamo.tables import stream_arn

    factories.shop_with(customers=1, products=1)
    new_records()  # the catalog is not part of the lost batch
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="lost")
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="after")
    records = new_records()
    batch = records[:-2]  # a contiguous run of the stream, like a Lambda batch; the read stops at its end
    assert any(r["dynamodb"]["Keys"]["PK"]["S"] == "o#lost" for r in batch)
    arn = stream_arn(ShopItem)
    assert arn
    shards = streams_client().describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    assert len(shards) == 1  # DynamoDB Local: one shard
    queue = FakeQueue(
        [on_failure_body(arn, shards[0]["ShardId"], batch[0], batch[-1], len(batch)), "not json", json.dumps({})]
    )
    monkeypatch.setattr(onfailure, "sqs_client", lambda: queue)

    with pytest.raises(SystemExit) as stopped:
        call_command("adminview_deadletters", "import-sqs", "--queue-url", "https://sqs.example/q")
    assert stopped.value.code == 1  # two messages could not be imported
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"imported shard {shards[0]['ShardId']} sequence numbers ")
    assert f": {len(batch)} stored, 0 already stored; message deleted" in out[0]
    assert out[1].startswith("kept message m1: message body is not JSON")
    assert out[2] == "kept message m2: message has no DDBStreamBatchInfo (not a DynamoDB stream on-failure record)"
    assert out[3] == f"3 message(s): {len(batch)} record(s) stored, 2 message(s) kept"
    assert queue.deleted == ["m0"]
    letters = list(sync_store.dead_letters())
    assert [letter.record for letter in letters] == batch  # whole records, exactly the batch's range
    assert all("on-failure message m0" in letter.error for letter in letters)

    call_command("adminview_deadletters", "replay")
    assert capsys.readouterr().out.splitlines()[-1] == f"replayed {len(batch)}, still failing 0"
    assert ddb_json.string(view_item("o#lost", "#order"), "Status") == "PENDING"


class TrimmedStream:
    def get_shard_iterator(self, **_: Any) -> dict[str, Any]:
        error = {"Error": {"Code": "TrimmedDataAccessException", "Message": "trimmed"}}
        raise ClientError(error, "GetShardIterator")  # type: ignore[arg-type]


def test_records_already_trimmed_name_the_lost_range(admin_view_table: str) -> None:
    first = {"dynamodb": {"SequenceNumber": "100"}}
    last = {"dynamodb": {"SequenceNumber": "200"}}
    queue = FakeQueue([on_failure_body("arn:aws:dynamodb:x:1:table/T/stream/s", "shardId-1", first, last, 2)])
    (result,) = onfailure.import_queue("q", sqs=queue, streams=TrimmedStream())
    assert result.line == (
        "kept message m0: records of shard shardId-1 sequence numbers 100..200 are no longer in the stream "
        "(trimmed after 24 hours or shard gone): lost (TrimmedDataAccessException); "
        "only rebuild_adminview can repair the view now"
    )
    assert queue.deleted == [] and list(sync_store.dead_letters()) == []


def test_import_needs_a_queue_url(capsys: pytest.CaptureFixture[str]) -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="import-sqs needs --queue-url URL"):
        call_command("adminview_deadletters", "import-sqs")
