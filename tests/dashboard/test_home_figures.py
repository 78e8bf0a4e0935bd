"""The home page's figures by period add up on their face: each is labelled by what it counts, and net revenue is
the revenue shown less the refunds of returns shown."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from returns import services
from shop import orders
from tests.adminview_helpers import sync_now
from tests.dashboard.test_refunds import cancelled_today

pytestmark = pytest.mark.django_db

__all__ = ["cancelled_today"]  # the fixture: two orders placed today, one cancelled and refunded


def test_net_is_the_revenue_shown_less_the_refunds_of_returns_shown(staff: Client, cancelled_today: None) -> None:
    # given today's revenue 21.00, a cancelled order's refund of 10.50 and a returned unit refunded 10.50
    orders.order_ship(order_id="6002")
    orders.order_deliver(order_id="6002")
    services.return_request(order_id="6002", lines=[services.Line("2001", 1, "too big")], return_id="r1")
    services.return_approve(return_id="r1")
    services.return_receive(return_id="r1", warehouse_id="301")
    services.return_refund(return_id="r1", amount="10.50", reference="PSP-1")
    sync_now()
    # when the home page is shown
    html = staff.get("/").content.decode()
    # then its columns say what they count
    for heading in ("revenue (orders not cancelled)", "refunds of returns", "net (revenue less refunds of returns)"):
        assert f'<th scope="col">{heading}</th>' in html
    assert '<th scope="col" class="secondary">refunds of cancelled orders</th>' in html
    # and each row's net is its revenue less its refunds of returns, the cancellation's refund apart
    rows = re.findall(
        r'<tr data-days="(\d+)">.*?<td class="num revenue">([^<]+)</td><td class="num refunds-of-returns">([^<]+)</td>'
        r'<td class="num net-revenue">([^<]+)</td><td class="num secondary">([^<]+)</td>',
        html,
    )
    assert [(days, revenue, returned, net, cancelled) for days, revenue, returned, net, cancelled in rows] == [
        (days, "$21.00", "$10.50", "$10.50", "$10.50") for days in ("1", "7", "30")
    ]
