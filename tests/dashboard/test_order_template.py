"""The order page's template (``dashboard/order.html``) on its own: the summary, the status section with the
actions each status offers to the fulfilment group, and the item rows with their favourite forms."""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from django.template.loader import render_to_string

from dashboard.cells import Cell
from shop.lifecycle import ORDER as ORDER_STEPS

ORDER = {
    "order_id": "1<2",
    "customer_id": "c&1",
    "date": datetime(2024, 5, 1, 12, 3, 4),
    "total": Decimal("12.50"),
    "status": "PENDING",
    "version": 3,
    "expected_delivery": "2024-05-04",
    "delivery_date_stored": False,
}
UNKNOWN = {**ORDER, "date": None, "total": None, "version": None, "expected_delivery": None, "status": None}


def page(order: dict[str, Any], **context: Any) -> str:
    shown = {"order": SimpleNamespace(**order), "items": [], "csrf_token": "tok", **context}
    return render_to_string("dashboard/order.html", shown)


def status(order: dict[str, Any], **context: Any) -> str:
    return render_to_string(
        "dashboard/order.html#status", {"order": SimpleNamespace(**order), "csrf_token": "tok"} | context
    )


def acting(order: dict[str, Any], *, fulfil: bool) -> str:
    """The status section as the order page renders it for a member of the fulfilment group or someone else."""
    offered = ORDER_STEPS.allowed(order["status"])
    return status(order, actions=offered if fulfil else [], offered=offered)


def forms(html: str) -> list[tuple[str, str]]:
    """(action, button class) of each form."""
    return re.findall(r'<form method="post" action="([^"]*)".*?<button type="submit" class="(\w+)"', html, re.S)


def test_the_summary_links_the_customer_and_says_when_the_delivery_date_is_an_estimate() -> None:
    html = page(ORDER)
    assert '<dd><a href="/customers/c&amp;1/">c&amp;1</a></dd>' in html
    assert "<dd>2024-05-01 12:03:04 UTC</dd>" in html and "<dd>$12.50</dd>" in html
    assert '<dd>2024-05-04 <span class="note">(estimated)</span>' in html
    operators = page(ORDER, may=SimpleNamespace(operate=True))  # who can run the backfill are told of it
    assert '<dd>2024-05-04 <span class="note">(estimated: not stored yet, see <code>backfill' in operators
    assert "backfill" not in html and "/consistency/" not in html and "/consistency/" in operators
    assert "(estimated" not in page({**ORDER, "delivery_date_stored": True})
    unknown = page(UNKNOWN)
    assert unknown.count("<dd>—</dd>") == 3 and "(estimated" not in unknown


def test_each_status_offers_its_actions_to_the_fulfilment_group_only() -> None:
    expected = {
        "PENDING": [("/orders/1%3C2/ship/", "ship"), ("/orders/1%3C2/cancel/", "cancel")],
        "SHIPPED": [("/orders/1%3C2/deliver/", "deliver")],
        "CANCELLED": [],
        None: [],
    }
    for order_status, actions in expected.items():
        html = acting({**ORDER, "status": order_status}, fulfil=True)
        assert forms(html) == actions
        assert html.count('name="csrfmiddlewaretoken" value="tok"') == len(actions)
        assert html.count('name="expected_version" value="3"') == len(actions)
        assert f'data-status="{order_status or ""}">{order_status or "unknown"}</strong>' in html
        outsider = acting({**ORDER, "status": order_status}, fulfil=False)
        assert forms(outsider) == [] and ("need" in outsider) is bool(actions)
    pending = acting(ORDER, fulfil=True)
    assert 'hx-confirm="Cancel order 1&lt;2, return its stock and refund what it paid?"' in pending
    assert 'hx-post="/orders/1%3C2/ship/" hx-target="#order-status" hx-swap="outerHTML"' in pending
    assert 'name="expected_version" value=""' in acting({**ORDER, "version": None}, fulfil=True)
    operators = SimpleNamespace(operate=True)  # the version counter is operators' business
    assert "version —" in status({**ORDER, "version": None}, may=operators)
    assert '<span class="note">version 3</span>' in status(ORDER, may=operators)
    assert '<span class="note">version' not in status(ORDER)


def test_the_answer_to_an_action_is_a_notice_or_on_conflict_an_alert() -> None:
    done = status(ORDER, message="Order <1> shipped.")
    assert '<section id="order-status" class="status">' in done
    assert '<div class="notice" role="status">Order &lt;1&gt; shipped.</div>' in done
    refused = status(ORDER, message="Changed meanwhile", conflict=True)
    assert '<section id="order-status" class="status conflict">' in refused
    assert '<div class="alert" role="status">Changed meanwhile</div>' in refused


def test_item_rows_show_their_cells_and_the_favourite_form() -> None:
    items = [
        (SimpleNamespace(product_id="20 01", is_favourite=True), [Cell("20 01", url="/x/"), Cell(2, numeric=True)]),
        (SimpleNamespace(product_id="<p>", is_favourite=False), [Cell("<p>")]),
    ]
    html = page({**ORDER, "order_id": "o 1"}, items=items, can_fulfil=True)
    rows = html.split('<table class="list" id="order-items">')[1].split("</table>")[0]
    assert '<tr><td><a href="/x/">20 01</a></td><td class="num">2</td>' in rows and "<td>&lt;p&gt;</td>" in rows
    assert "<td>★" in rows and rows.count("★") == 1
    assert (
        'action="/orders/o%201/items/20%2001/unfavourite/" hx-post="/orders/o%201/items/20%2001/unfavourite/"' in rows
    )
    assert 'action="/orders/o%201/items/%3Cp%3E/favourite/"' in rows
    assert rows.count('name="csrfmiddlewaretoken" value="tok"') == 2
    assert ">Unmark</button>" in rows and ">Mark favourite</button>" in rows
    read_only = page(ORDER, items=items, can_fulfil=False)
    assert "<form" not in read_only.split('id="order-items"')[1].split("</table>")[0]
    assert '<tr><td colspan="7">No items.</td></tr>' in page(ORDER, items=[], can_fulfil=True)


def test_a_history_entry_shows_each_attribute_it_changed_in_words_else_its_detail() -> None:
    moved = SimpleNamespace(
        action="ship",
        from_status="PENDING",
        to_status="SHIPPED",
        changes=[SimpleNamespace(attribute="DeliveryDate", before=None, after="2026-11-30")],
        detail="DeliveryDate: - -> 2026-11-30",
    )
    replay = SimpleNamespace(action="replay", changes=None, detail="3 records")
    html = render_to_string("dashboard/order.html#history", {"history": [moved, replay]})
    assert "<div>Delivery date: (none) → 2026-11-30</div>" in html and "DeliveryDate" not in html
    assert '<span class="mono">3 records</span>' in html
