"""Rebuild and verify: bounded memory, stub expiry (TTL), the commands' flags."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from adminview.core import anchor
from adminview.repair import rebuild
from adminview.repair.table_walk import parallel_scan
from adminview.sync.apply import apply_records
from adminview.tables import ADMIN_VIEW_TABLE, ViewItem
from dynamo import ddb_json
from dynamo.batch import batch_write, delete_request
from dynamo.client import client_of
from dynamo.tables import TableSpec, ensure_table
from shop import orders
from shop.models import ShopItem
from shop.orders import OrderLine
from tests import factories
from tests.adminview.streams import new_records
from tests.adminview_helpers import sync_now, view_count

pytestmark = pytest.mark.ddb_local
REPO = Path(__file__).resolve().parents[3]
DAY = 24 * 3600


def _place(count: int, prefix: str) -> None:
    for n in range(count):
        lines = [OrderLine(f"200{1 + n % 3}", 1), OrderLine(f"200{1 + (n + 1) % 3}", 1)]
        orders.order_place(customer_id=f"100{1 + n % 3}", lines=lines, order_id=f"{prefix}{n}")


def _empty_view() -> None:
    """Every view item gone, anchors included: the rebuild has to write the whole view again."""
    view = [i for i in parallel_scan(ViewItem) if not i["PK"].startswith("seq#")]
    requests = [delete_request(ddb_json.key(i["PK"], i["SK"])) for i in view]
    batch_write(client_of(ViewItem), str(ViewItem.Meta.table_name), requests, key_names=("PK", "SK"))


def _peak(work: Callable[[], Any], before: Callable[[], Any] = lambda: None) -> int:
    """The least of two runs' peaks (``before`` each, untraced): tracemalloc counts every thread's allocations,
    and another thread of the process (a test worker's) can add to one run's peak; what the work itself holds is
    in both."""
    peaks = []
    for _ in range(2):
        before()
        tracemalloc.start()
        try:
            work()
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    return min(peaks)


def test_rebuild_and_verify_memory_does_not_grow_with_the_table(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=3, products=3, stock_each=10_000)
    _place(8, "a")
    rebuild.rebuild(segments=2, page_size=10)  # warm-up: imports, clients, connection pools

    def rebuild_all() -> None:
        _empty_view()
        found = rebuild.rebuild(segments=2, page_size=10)
        assert found.missing > 0 and rebuild.verify(settle_s=0).clean

    def measure() -> tuple[int, int, int]:
        written = _peak(lambda: rebuild.rebuild(segments=2, page_size=10), before=_empty_view)
        checked = _peak(lambda: rebuild.verify(segments=2, page_size=10, settle_s=0))
        whole = _peak(lambda: parallel_scan(ShopItem, segments=2))  # what the old rebuild held, twice over
        return written, checked, whole

    rebuild_all()
    small = measure()
    _place(48, "b")  # the table grows sevenfold
    rebuild_all()
    large = measure()

    # Streaming holds one page and one partition per segment, whatever the table's size; a reader that keeps
    # the whole table (the last figure) fails the same bound.
    assert large[0] < 2 * small[0], (small, large)
    assert large[1] < 2 * small[1], (small, large)
    assert large[2] >= 2 * small[2], (small, large)


def test_view_table_has_ttl_on_expires_at_and_only_stub_anchors_carry_it(
    shop_table: str, admin_view_table: str
) -> None:
    client = client_of(ViewItem)
    ttl = client.describe_time_to_live(TableName=admin_view_table)["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] in ("ENABLED", "ENABLING") and ttl["AttributeName"] == "ExpiresAt"
    assert ensure_table(ADMIN_VIEW_TABLE) == []  # idempotent
    with pytest.raises(RuntimeError, match="TTL on ExpiresAt"):
        ensure_table(TableSpec(model=ViewItem, ttl_attribute="GoneAt"))

    factories.shop_with(customers=2, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    sync_now()
    assert all("ExpiresAt" not in i for i in parallel_scan(ViewItem))  # live anchors never expire
    started = time.time()
    ShopItem.get("c#1002", "c#1002").delete()  # the customer is removed: its profile becomes a stub
    sync_now()
    rebuild.rebuild()  # keeps the stub (and its sequence numbers) as it is
    items = parallel_scan(ViewItem)
    [stub] = [i for i in items if i["PK"] == "c#1002"]
    assert "Gone" in stub and "Name" not in stub and "GSI5PK" not in stub and stub["Seqs"]["c#1002"]
    expires = int(stub["ExpiresAt"])  # 48 h after the sync wrote it
    assert started + anchor.LIFETIME_S - 1 <= expires <= time.time() + anchor.LIFETIME_S
    assert all("ExpiresAt" not in i for i in items if i is not stub)
    assert anchor.LIFETIME_S >= 2 * anchor.STREAM_RETENTION_S
    assert rebuild.verify(settle_s=0).clean


def test_a_record_older_than_a_watermark_can_live_is_failed_not_applied(shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    records = new_records()
    placed = next(r for r in records if r["dynamodb"]["Keys"]["SK"]["S"].startswith("c#"))
    old = json.loads(json.dumps(placed))
    old["dynamodb"]["ApproximateCreationDateTime"] = time.time() - 3 * DAY  # e.g. a dead letter replayed late

    outcome = apply_records([old])  # no watermark: a newer record's may have expired
    assert "older than an anchor's stub can live" in outcome.failed[old["eventID"]]
    assert view_count("o#o1") == 0

    assert not apply_records(records).failed
    again = apply_records([old])  # with a watermark it is judged by its sequence number: already applied
    assert not again.failed and again.skipped == 1


def test_commands_report_items_per_second_and_accept_rate_limits(
    shop_table: str, admin_view_table: str, capsys: pytest.CaptureFixture[str]
) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    call_command("rebuild_adminview", "--segments", "2", "--rate-limit", "500", "--no-progress")
    out = capsys.readouterr().out
    # the profile and its 5 search entries (ada, lovelace, the email's parts example, com, the whole email, which
    # also stands for c1001, the part it starts with),
    # the catalogue row and its 2 (product, 2001), the order's summary, counted item, customer's entry, payment
    # entry and category entry
    assert "rebuilt: missing 14, extra 0, differing 0" in out and "items/s" in out
    call_command("verify_adminview", "--segments", "3", "--page-size", "1", "--no-progress")
    assert "admin view OK" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["rebuild_adminview", "--rate-limit", "fast"], "neither units per second"),
        (["rebuild_adminview", "--rate-limit", "25%"], "on-demand"),
        (["verify_adminview", "--rate-limit", "-3"], "positive number"),
    ],
)
def test_bad_rate_limits_are_one_line_errors(
    shop_table: str, admin_view_table: str, argv: list[str], message: str
) -> None:
    with pytest.raises(CommandError, match=message):
        call_command(*argv)


def test_bad_flags_exit_non_zero_with_one_line() -> None:
    for argv, message in [
        (["rebuild_adminview", "--segments", "0"], "between 1 and 64"),
        (["verify_adminview", "--settle", "-1", "--segments", "2"], "between 0 and 3600"),
    ]:
        done = subprocess.run(
            [sys.executable, "manage.py", *argv], cwd=REPO, capture_output=True, text=True, timeout=120
        )
        assert done.returncode != 0 and message in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
