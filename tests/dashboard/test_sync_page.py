"""The /sync/ page and the freshness line, on DynamoDB Local."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from adminview.sync import sync_store
from adminview.sync.handler import handler
from dashboard import freshness
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview.returns_workload import put_return
from tests.adminview.streams import new_records
from tests.adminview_helpers import break_projection_of, sync_now
from tests.dashboard.conftest import csrf_of, csv_rows

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]


def _poison(monkeypatch: pytest.MonkeyPatch) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="bad")
    break_projection_of(monkeypatch, "o#bad")
    handler({"Records": new_records()})


def test_pages_on_the_view_say_how_fresh_it_is(staff: Client, shop_table: str, admin_view_table: str) -> None:
    factories.shop_with(customers=1, products=1)
    before = staff.get("/orders/pending/")
    assert "Sync has not run yet" in before.content.decode()
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    sync_now()
    for url in ("/orders/pending/", "/customers/1001/", "/products/2001/buyers/"):
        response = staff.get(url)
        html = response.content.decode()
        line = html.split('id="view-freshness">')[1].split("</p>")[0]
        # the sync has caught up: the line says so, and does not repeat the delay of the batch it last applied
        assert line.startswith("Up to date as of ") and "behind" not in line, (url, line)
    calls = int(staff.get("/orders/pending/")["X-DynamoDB-Calls"])
    assert calls == 4 + 1 + 1 + 1  # a Query per pending shard, the profiles, the orders' statuses, the heartbeats


def test_freshness_is_read_once_per_cache_period(
    staff: Client, shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [100.0]
    monkeypatch.setattr(freshness, "CACHE_S", 1.0)
    monkeypatch.setattr(freshness, "clock", lambda: now[0])
    first = int(staff.get("/orders/pending/")["X-DynamoDB-Calls"])
    now[0] += 0.5
    cached = int(staff.get("/orders/pending/")["X-DynamoDB-Calls"])
    now[0] += 1.0
    again = int(staff.get("/orders/pending/")["X-DynamoDB-Calls"])
    assert (first, cached, again) == (cached + 1, cached, cached + 1)


def test_sync_page_shows_shards_dead_letters_and_last_verify(
    operator: Client, shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _poison(monkeypatch)  # in Lambda mode
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o2")
    sync_now()  # and the poller
    with pytest.raises(SystemExit):
        call_command("verify_adminview")  # the bad order is missing from the view
    response = operator.get("/sync/")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('class="dead-letter"') == 3 and "simulated bug" in html
    assert 'id="dead-letter-count">3<' in html
    assert "differences" in html.split('id="last-verify"')[1]
    assert "|shardId-" in html  # the poller's heartbeat names its shard
    assert "Replay" not in html  # operators who are not superusers get no buttons
    assert int(response["X-DynamoDB-Calls"]) == 4


def test_replay_is_for_superusers_with_csrf(
    staff: Client, boss: Client, shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _poison(monkeypatch)
    key = next(sync_store.dead_letters()).key
    assert staff.post("/sync/replay/", {"key": key}).status_code == 403
    assert boss.post("/sync/replay/", {"key": key}).status_code == 403  # no CSRF token
    token = csrf_of(boss)
    still = boss.post("/sync/replay/", {"key": key}, headers={"X-CSRFToken": token}, follow=True)
    assert still.status_code == 200 and "still failing: " in still.content.decode()
    assert next(sync_store.dead_letters()).attempts == 2
    assert boss.post("/sync/replay/", {"key": "nonsense"}, headers={"X-CSRFToken": token}).status_code == 400
    assert boss.get("/sync/replay/").status_code == 405

    monkeypatch.undo()  # the cause is fixed
    done = boss.post("/sync/replay/", {"all": "1"}, headers={"X-CSRFToken": token}, follow=True)
    assert done.content.decode().count("applied: ") == 3
    assert list(sync_store.dead_letters()) == []
    sync_now()  # the audit entries reach the activity index like every staff change
    header, *cells = csv_rows(boss.get("/activity/?format=csv"))
    rows = [dict(zip(header, row, strict=True)) for row in cells]
    assert [(r["order_id"], r["action"], r["user"]) for r in rows] == [("bad", "replay", "boss")] * 3
    assert all(r["detail"].startswith(("INSERT o#bad ", "MODIFY o#bad ")) for r in rows), [r["detail"] for r in rows]
    assert len({r["request_id"] for r in rows}) == 1  # one click
    assert 'data-action="replay"' in boss.get("/activity/?user=boss").content.decode()
    missing = boss.post("/sync/replay/", {"key": key}, headers={"X-CSRFToken": token})
    assert missing.status_code == 404
    assert "Replay all" not in boss.get("/sync/").content.decode()


def _line(client: Client, url: str) -> str:
    html = client.get(url).content.decode()
    return html.split('id="view-freshness">')[1].split("</p>")[0]


def test_each_page_names_the_sources_its_figures_come_from(
    staff: Client, shop_table: str, admin_view_table: str
) -> None:
    # given records of both tables applied by the poller (both sources up to date)
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    put_return("r1", "o1", "1001", "REQUESTED", "2026-03-02T10:00:00", ("2001", "1"))
    sync_now()
    # then the shop's pages say "shop", the returns pages "returns", the pages with both say both
    assert _line(staff, "/orders/pending/").startswith("Up to date as of ")
    assert "(shop)." in _line(staff, "/orders/pending/")
    assert "(shop and returns)." in _line(staff, "/customers/1001/")
    assert "(shop and returns)." in _line(staff, "/")
    assert "(returns)." in _line(staff, "/returns/")
    assert "(returns)." in _line(staff, "/stats/refunds/?from=2026-03-01&to=2026-03-02")
    # and a page still reads the heartbeats once, whatever sources it names
    assert (
        int(staff.get("/orders/pending/")["X-DynamoDB-Calls"]) == 4 + 1 + 1 + 1
    )  # shards, profiles, statuses, heartbeats


def test_sources_in_different_states_are_said_each(staff: Client, shop_table: str, admin_view_table: str) -> None:
    # given the shop's stream applied by a Lambda environment, the returns table's never (no records yet)
    factories.shop_with(customers=1, products=1)
    handler({"Records": new_records()})
    # then a page reading both says how fresh each is
    line = _line(staff, "/customers/1001/")
    assert line.startswith("Last change applied at ") and "(shop)" in line
    assert "Sync has not run yet (returns)" in line


def test_sync_page_groups_writers_and_dead_letters_by_source(
    operator: Client, shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a poison record of the shop table (Lambda), the poller following both streams, and a record from a
    # table no source reads
    _poison(monkeypatch)
    put_return("r1", "o1", "1001", "REQUESTED", "2026-03-02T10:00:00", ("2001", "1"))
    sync_now()
    stray = {
        "eventID": "stray-1",
        "eventName": "INSERT",
        "dynamodb": {"SequenceNumber": "99", "Keys": {}},
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:0:table/Gone/stream/1",
    }
    sync_store.store_dead_letter(stray, "no source of the admin view reads it")
    html = operator.get("/sync/").content.decode()
    # then each source has its row with its freshness, each writer and dead letter says its source
    sources = html.split('id="sources"')[1].split("</table>")[0]
    assert 'data-source="shop"' in sources and 'data-source="returns"' in sources
    beats = html.split('id="heartbeats"')[1].split("</table>")[0]
    assert beats.count('data-source="returns"') == 1 and beats.count('data-source="shop"') == 2  # shard, Lambda
    letters = html.split('id="dead-letters"')[1].split("</table>")[0]
    assert letters.count("<td>shop</td>") == 3 and "unknown table Gone" in letters
