"""The backfill framework and the two migrations, against DynamoDB Local: killed with SIGKILL and resumed,
idempotent, dry run, rate limit, and AWS's sample order getting its derived status."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import boto3
import pytest
from django.core.management import CommandError, call_command

from dynamo import backfill, checkpoints
from dynamo.client import client_of
from dynamo.paging import raw_items
from dynamo.ratelimit import TokenBucket, parse_rate_limit
from dynamo.tables import stream_arn
from shop import access_patterns, migrations, orders, workbench
from shop.delivery import delivery_date_for
from shop.models import Order, ShopItem
from tests.samples import AWS_MODEL
from tests.shop import legacy

REPO = Path(__file__).resolve().parents[2]
ORDERS = 1_000


def _orders() -> list[dict[str, Any]]:
    return list(
        raw_items(
            client_of(ShopItem),
            "scan",
            TableName=ShopItem.Meta.table_name,
            FilterExpression="EntityType = :o",
            ExpressionAttributeValues={":o": {"S": "order"}},
        )
    )


def _upgraded() -> int:
    return sum(1 for o in _orders() if "DeliveryDate" in o)


def _stream_changes(attribute: str) -> Counter[str]:
    """Per PK: how many MODIFY records added ``attribute``; also fails on a write that touched it again."""
    client = boto3.client("dynamodbstreams")
    arn = stream_arn(ShopItem)
    assert arn is not None
    added: Counter[str] = Counter()
    for shard in client.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = client.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")[
            "ShardIterator"
        ]
        while iterator:
            page = client.get_records(ShardIterator=iterator, Limit=1000)
            for record in page["Records"]:
                if record["eventName"] != "MODIFY":
                    continue
                old, new = record["dynamodb"].get("OldImage", {}), record["dynamodb"].get("NewImage", {})
                assert attribute not in old, f"{new['PK']['S']} was written again after its upgrade"
                if attribute in new:
                    added[new["PK"]["S"]] += 1
            if not page["Records"]:
                break
            iterator = page.get("NextShardIterator")
    return added


def test_dry_run_reports_and_writes_nothing(shop_table: str, checkpoint_table: str) -> None:
    legacy.write(legacy.order_items(40, legacy=True))
    report = backfill.run(migrations.delivery_date(), segments=3, dry_run=True)
    assert (report.candidates, report.would_change, report.changed) == (40, 40, 0)
    assert report.samples and "would set DeliveryDate=" in report.samples[0]
    assert _upgraded() == 0
    assert checkpoints.checkpoints(shop_table, migrations.delivery_date().name) == []
    out = _call("backfill", "delivery-date", "--dry-run", "--no-progress")
    assert "would change 40" in out and _upgraded() == 0


def _call(*args: str) -> str:
    from io import StringIO

    buffer = StringIO()
    call_command(*args, stdout=buffer)
    return buffer.getvalue()


SEGMENTS = 4


@pytest.mark.slow
def test_backfill_killed_with_sigkill_resumes_and_upgrades_every_order_once(
    shop_table: str, checkpoint_table: str
) -> None:
    legacy.write(legacy.order_items(ORDERS, legacy=True, only_orders=True))
    migration = migrations.delivery_date()
    # Slow the first run down (rate limit) so it is certainly killed half way.
    process = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "backfill",
            "delivery-date",
            "--segments",
            str(SEGMENTS),
            "--page-size",
            "25",
            "--rate-limit",
            "150",
            "--no-progress",
        ],
        cwd=REPO,
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120  # a guard against a hang only: the run starts changing within seconds
        while time.monotonic() < deadline and process.poll() is None:
            saved = checkpoints.checkpoints(shop_table, migration.name)
            if sum(int(cp.changed) for cp in saved) >= 50:
                break
            time.sleep(0.05)
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == -signal.SIGKILL
    killed_at = _upgraded()
    assert 0 < killed_at < ORDERS, "the first run was not stopped half way"

    with pytest.raises(ValueError, match=f"--segments {SEGMENTS}"):
        backfill.run(migration, segments=2)
    report = backfill.run(migration, segments=SEGMENTS)
    assert report.resumed_segments >= 1
    # Each segment's thread has at most one UpdateItem in flight at the kill, and the engine may apply it after
    # ``killed_at`` was counted: the resumed run then finds that order done, either before it reads it (not a
    # candidate) or at its conditional write (skipped). Exactly-once is shown by the stream below.
    assert ORDERS - killed_at - SEGMENTS <= report.changed + report.skipped
    assert report.changed <= ORDERS - killed_at
    assert report.scanned < ORDERS  # resumed: pages done before the kill are not scanned again

    by_order = {o["PK"]["S"]: o for o in _orders()}
    assert len(by_order) == ORDERS
    for n in range(1, ORDERS + 1):
        assert by_order[f"o#L{n:06d}"]["DeliveryDate"]["S"] == delivery_date_for(legacy.placed_at(n))
    added = _stream_changes("DeliveryDate")
    assert set(added) == set(by_order) and set(added.values()) == {1}  # every order upgraded exactly once

    again = backfill.run(migration, segments=SEGMENTS)
    assert again.already_done and again.changed == 0
    rescan = backfill.run(migration, segments=SEGMENTS, start_over=True)
    assert (rescan.candidates, rescan.changed) == (0, 0)
    assert _stream_changes("DeliveryDate") == added  # nothing written by the two later runs
    day = delivery_date_for(legacy.placed_at(7))
    due = {o.order_id for o in access_patterns.orders_due_on(date=day, limit=1000).items}
    assert due == {f"L{n:06d}" for n in range(1, ORDERS + 1) if delivery_date_for(legacy.placed_at(n)) == day}


def test_an_item_upgraded_meanwhile_is_skipped_not_overwritten(shop_table: str, checkpoint_table: str) -> None:
    legacy.write(legacy.order_items(3, legacy=True))
    migration = migrations.delivery_date()
    real_plan = migration.plan

    def plan_then_race(raw: dict[str, Any]) -> backfill.Change | None:
        change = real_plan(raw)
        if raw["PK"]["S"] == "o#L000002":  # the new code writes it between our read and our write
            Order(pk="o#L000002", sk=raw["SK"]["S"]).update(actions=[Order.delivery_date.set("2030-01-01")])
        return change

    report = backfill.run(backfill.Migration(**{**migration.__dict__, "plan": plan_then_race}), segments=1)
    assert (report.changed, report.skipped) == (2, 1)
    assert orders.order_collection("L000002").order.delivery_date == "2030-01-01"


def test_order_status_migration_gives_aws_sample_order_its_status(shop_table: str, checkpoint_table: str) -> None:
    workbench.import_items(workbench.parse_file(AWS_MODEL))
    before = orders.order_collection("12345").order
    assert before.status is None and before.expected_delivery == "2020-06-26"  # lazy: date + 5 days
    out = _call("backfill", "order-status", "--no-progress")
    assert "candidates" in out
    order = orders.order_collection("12345")
    assert order.shipments and order.order.status == "SHIPPED"
    for other in _orders():
        expected = "SHIPPED" if access_patterns.shipments_for_order(order_id=other["PK"]["S"]).items else "PENDING"
        assert other["Status"]["S"] == expected
    _call("backfill", "delivery-date", "--no-progress")
    shipment = order.shipments[0]
    assert orders.order_collection("12345").order.delivery_date == delivery_date_for(
        shipment.date or before.date, shipment.type
    )


def test_command_errors_are_one_line(shop_table: str, checkpoint_table: str) -> None:
    with pytest.raises(CommandError, match="unknown migration 'nope'"):
        call_command("backfill", "nope")
    with pytest.raises(CommandError, match="on-demand"):
        call_command("backfill", "order-status", "--rate-limit", "25%")
    with pytest.raises(CommandError, match="neither units"):
        call_command("backfill", "order-status", "--rate-limit", "fast")
    assert "delivery-date:" in _call("backfill", "--list")


def test_rate_parsing_and_token_bucket() -> None:
    provisioned = {"ProvisionedThroughput": {"ReadCapacityUnits": 400, "WriteCapacityUnits": 100}}
    assert parse_rate_limit("25%", provisioned) == (100.0, 25.0)
    assert parse_rate_limit("200") == (200.0, 200.0)
    assert parse_rate_limit(None) == (None, None)
    for bad in ("0", "-5", "150%", "nan"):
        with pytest.raises(ValueError):
            parse_rate_limit(bad, provisioned)

    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    bucket = TokenBucket(10.0, clock=lambda: now[0], sleep=sleep)
    bucket.wait()
    bucket.spend(25.0)  # one second of burst (10), then 15 units of debt
    bucket.wait()
    assert sum(slept) == pytest.approx(1.5)
    unlimited = TokenBucket(None, clock=lambda: now[0], sleep=sleep)
    unlimited.spend(1e9)
    unlimited.wait()
    assert sum(slept) == pytest.approx(1.5)
