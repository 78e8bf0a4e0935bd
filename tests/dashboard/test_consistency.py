"""``/orders/<oid>/consistency/`` and its repair on DynamoDB Local, with the real admin view (the shop stream
drained into it with ``sync_now``)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest
from django.test import Client

from adminview.repair import consistency, repair
from adminview.repair.table_walk import Table
from adminview.tables import ViewItem
from dynamo import backoff
from dynamo.client import client_of
from shop import orders
from shop.models import AuditEntry
from shop.orders import OrderLine, PaymentSpec
from tests import factories
from tests.adminview.returns_workload import put_refund, put_return
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csrf_of, csv_rows

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]


@pytest.fixture
def oid(shop_table: str, admin_view_table: str) -> str:
    factories.shop_with(customers=1, products=2)
    order_id = "k-" + uuid.uuid4().hex[:8]
    orders.order_place(
        customer_id="1001",
        lines=[OrderLine("2001", 2), OrderLine("2002", 1)],
        placed_at=datetime(2024, 5, 1, 12, 0),
        order_id=order_id,
        payments=[PaymentSpec("Visa", "31.50", "tx-" + order_id)],
    )
    sync_now()
    return order_id


def lose_payment(order_id: str) -> None:
    """Delete the order's payment entry (``t#<transaction>`` / ``o#<oid>``) from the view."""
    client_of(ViewItem).delete_item(
        TableName=str(ViewItem.Meta.table_name),
        Key={"PK": {"S": "t#tx-" + order_id}, "SK": {"S": "o#" + order_id}},
    )


def verdict(client: Client, order_id: str) -> dict[str, Any]:
    response = client.get(f"/orders/{order_id}/consistency/?format=json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    found: dict[str, Any] = response.json()
    return found


def repair_post(client: Client, order_id: str, *, htmx: bool = False) -> Any:
    headers = {"X-CSRFToken": csrf_of(client)}
    if htmx:
        headers["HX-Request"] = "true"
    return client.post(f"/orders/{order_id}/consistency/repair/", headers=headers)


def repair_entries(order_id: str) -> list[AuditEntry]:
    return [e for e in AuditEntry.query("o#" + order_id, AuditEntry.sk.startswith("AUDIT#")) if "repair" in e.action]


def test_an_untouched_order_is_in_sync(operator: Client, oid: str) -> None:
    page = operator.get(f"/orders/{oid}/consistency/")
    # the order's returns (GSI1), the anchors, the shop partition, its refunds partition, the view, the heartbeats
    assert page.status_code == 200 and page["X-DynamoDB-Calls"] == "6"
    html = page.content.decode()
    assert 'data-verdict="in_sync"' in html and f'href="/orders/{oid}/"' in html
    assert "None: the view holds what the source tables imply." in html and "Repair from the source tables" not in html
    assert f"o#{oid} #order" in html and "p#2001" in html and "Up to date as of" in html

    found = verdict(operator, oid)
    assert (found["verdict"], found["differences"], found["order_id"]) == ("in_sync", [], oid)
    assert [s["sk"] for s in found["watermarks"]["sources"]] == ["c#1001", "i#" + oid, "p#2001", "p#2002"]
    assert all(s["sequence_number"] for s in found["watermarks"]["sources"]) and found["watermarks"]["applied_at"]
    assert found["expected_items"] == found["stored_items"] and found["rule"] == consistency.RULE


def test_the_order_page_links_to_it_for_operators(operator: Client, staff: Client, oid: str) -> None:
    assert f'href="/orders/{oid}/consistency/"' in operator.get(f"/orders/{oid}/").content.decode()
    assert "/consistency/" not in staff.get(f"/orders/{oid}/").content.decode()


def test_a_damaged_view_item_differs(operator: Client, oid: str) -> None:
    lose_payment(oid)
    found = verdict(operator, oid)
    assert found["verdict"] == "differs"
    (difference,) = found["differences"]
    assert difference["key"] == {"PK": f"t#tx-{oid}", "SK": f"o#{oid}"} and difference["kind"] == "missing"
    assert difference["contradiction"] is True and difference["stored"] is None
    assert difference["expected"]["Kind"] == "payment"
    assert found["contradicted"] == [difference["key"]]

    page = operator.get(f"/orders/{oid}/consistency/")
    assert page["X-DynamoDB-Calls"] == "12"  # looked twice: the sync might have been half-way
    assert 'data-verdict="differs"' in page.content.decode() and 'data-kind="missing"' in page.content.decode()


def test_an_order_changed_while_the_sync_is_stopped_is_behind(operator: Client, oid: str) -> None:
    orders.order_ship(order_id=oid)
    found = verdict(operator, oid)
    assert found["verdict"] == "behind"
    summary = next(d for d in found["differences"] if d["key"]["SK"] == "#order")
    status = next(a for a in summary["attributes"] if a["name"] == "Status")
    assert (summary["kind"], status["expected"], status["stored"]) == ("differing", "SHIPPED", "PENDING")
    sync_now()
    assert verdict(operator, oid)["verdict"] == "in_sync"


def test_repair_makes_it_in_sync_and_shows_in_activity(boss: Client, oid: str) -> None:
    lose_payment(oid)
    response = repair_post(boss, oid)
    assert response.status_code == 302 and response["Location"] == f"/orders/{oid}/consistency/"
    # the order's returns, the anchors, the shop and refunds partitions, the view, one TransactWriteItems
    assert int(response["X-DynamoDB-Calls"]) == 6
    page = boss.get(response["Location"]).content.decode()
    assert f"Rewrote 1 view item of order {oid}" in page and 'data-verdict="in_sync"' in page
    assert verdict(boss, oid)["verdict"] == "in_sync"

    header, *cells = csv_rows(boss.get("/activity/?format=csv"))
    rows = [dict(zip(header, row, strict=True)) for row in cells]
    assert [(r["order_id"], r["action"], r["user"]) for r in rows] == [(oid, "repair-view", "boss")]
    assert "missing payment" in rows[0]["detail"] and rows[0]["request_id"]
    sync_now()  # the audit entry's own record changes nothing
    assert verdict(boss, oid)["verdict"] == "in_sync"
    assert len(csv_rows(boss.get("/activity/?format=csv"))) == 2


def test_repair_with_htmx_swaps_the_result(boss: Client, oid: str) -> None:
    lose_payment(oid)
    response = repair_post(boss, oid, htmx=True)
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<section id="consistency-result">')
    assert "Rewrote 1 view item" in html and 'data-verdict="in_sync"' in html and "<html" not in html


def test_repair_with_nothing_to_repair_writes_nothing(boss: Client, oid: str) -> None:
    response = repair_post(boss, oid)
    assert response.status_code == 302 and int(response["X-DynamoDB-Calls"]) == 5  # no write
    assert "Nothing to repair" in boss.get(response["Location"]).content.decode()
    assert repair_entries(oid) == []


def test_repair_is_for_superusers_with_csrf(
    staff: Client, packer: Client, operator: Client, boss: Client, oid: str
) -> None:
    lose_payment(oid)
    assert staff.post(f"/orders/{oid}/consistency/repair/").status_code == 403
    refused = repair_post(packer, oid)  # the fulfilment group ships orders; the operations pages are not theirs
    assert refused.status_code == 403 and "for operators" in refused.content.decode()
    refused = operator.post(f"/orders/{oid}/consistency/repair/")  # operators look; superusers repair
    assert refused.status_code == 403 and "Only superusers" in refused.content.decode()
    assert boss.post(f"/orders/{oid}/consistency/repair/").status_code == 403  # no CSRF token
    assert boss.get(f"/orders/{oid}/consistency/repair/").status_code == 405
    assert repair_entries(oid) == [] and verdict(operator, oid)["verdict"] == "differs"


def test_bad_and_unknown_orders(operator: Client, boss: Client, oid: str) -> None:
    assert operator.get("/orders/bad%20id!/consistency/").status_code == 400
    assert operator.get(f"/orders/{oid}/consistency/?format=csv").status_code == 400
    missing = operator.get("/orders/nope/consistency/")
    assert missing.status_code == 404 and "no order with id" in missing.content.decode()
    as_json = operator.get("/orders/nope/consistency/?format=json")
    assert as_json.status_code == 404 and as_json.json() == {"error": "no order with id 'nope'"}
    assert repair_post(boss, "bad id!").status_code == 400
    assert repair_post(boss, "nope").status_code == 404


def test_an_order_that_keeps_changing_gets_409(boss: Client, oid: str, monkeypatch: pytest.MonkeyPatch) -> None:
    lose_payment(oid)

    def beaten(_view: Table, _actions: list[dict[str, Any]]) -> None:
        raise repair.Contended("ConditionalCheckFailed")

    monkeypatch.setattr(consistency, "_commit", beaten)
    monkeypatch.setattr(backoff, "ORDER_REPAIRS", replace(backoff.ORDER_REPAIRS, attempts=2))
    plain = repair_post(boss, oid)
    assert plain.status_code == 409 and "keeps changing" in plain.content.decode()
    swapped = repair_post(boss, oid, htmx=True)
    html = swapped.content.decode()
    assert swapped.status_code == 409 and 'class="alert"' in html and 'data-verdict="differs"' in html
    assert repair_entries(oid) == []


def test_the_page_covers_the_orders_refunds_and_returns(operator: Client, boss: Client, oid: str) -> None:
    # given an order with two returns and a refund, from the returns service, applied to the view
    put_return("r1-" + oid, oid, "1001", "RECEIVED", "2024-05-10T09:00:00", ("2001", "1"))
    put_return("r2-" + oid, oid, "1001", "REQUESTED", "2024-05-11T09:00:00", ("2002", "1"))
    put_refund("f1-" + oid, oid, "12.50", "2024-05-11T10:00:00", "r1-" + oid)
    sync_now()
    # then the page shows each source partition, in sync, with one more Query per return
    page = operator.get(f"/orders/{oid}/consistency/")
    assert page.status_code == 200 and page["X-DynamoDB-Calls"] == str(6 + 2)
    html = page.content.decode()
    assert html.count('class="source-partition"') == 4 and 'data-verdict="in_sync"' in html
    assert f"r#r2-{oid}" in html and "Up to date as of" in html and "(shop and returns)" in html
    found = verdict(operator, oid)
    assert [(s["source"], s["partition"], s["verdict"]) for s in found["sources"]] == [
        ("shop", f"o#{oid}", "in_sync"),
        ("returns", f"o#{oid}", "in_sync"),
        ("returns", f"r#r1-{oid}", "in_sync"),
        ("returns", f"r#r2-{oid}", "in_sync"),
    ]

    # when the view loses the order's refunds, then the refunds partition differs, and a repair puts them back
    client_of(ViewItem).delete_item(
        TableName=str(ViewItem.Meta.table_name), Key={"PK": {"S": f"o#{oid}"}, "SK": {"S": "#refunds"}}
    )
    found = verdict(operator, oid)
    assert found["verdict"] == "differs"
    assert [s["verdict"] for s in found["sources"]] == ["in_sync", "differs", "in_sync", "in_sync"]
    assert [d["key"]["SK"] for d in found["sources"][1]["differences"]] == ["#refunds"]
    assert repair_post(boss, oid).status_code == 302
    assert verdict(operator, oid)["verdict"] == "in_sync"
