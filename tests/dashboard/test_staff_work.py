"""Orders by status, deliver, bulk actions, the activity list, the live queue and staff accounts, on
DynamoDB Local with the real admin view (the shop stream drained into it with ``sync_now``)."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client

from shop import orders
from shop.audit import Actor
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csrf_of, csv_rows
from tests.dashboard.test_order import post

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]


@pytest.fixture
def placed(shop_table: str, admin_view_table: str) -> list[str]:
    """Six pending orders, oldest first."""
    factories.shop_with(customers=2, products=2, stock_each=1_000)
    tag = uuid.uuid4().hex[:6]
    ids = []
    for n in range(6):
        oid = f"s{n}-{tag}"
        orders.order_place(
            customer_id=str(1001 + n % 2),
            lines=[OrderLine(str(2001 + n % 2), 1)],
            placed_at=datetime(2026, 3, 1) + timedelta(hours=n),
            order_id=oid,
        )
        ids.append(oid)
    sync_now()
    return ids


def listed(client: Client, status: str) -> list[str]:
    rows = csv_rows(client.get(f"/orders/?status={status}&format=csv"))
    assert rows[0][0] == "order_id"
    return [r[0] for r in rows[1:]]


def test_status_lists_follow_ship_cancel_and_deliver(packer: Client, placed: list[str]) -> None:
    a, b, c = placed[0], placed[1], placed[2]
    assert post(packer, f"/orders/{a}/ship/", {"expected_version": "1"}).status_code == 200
    assert post(packer, f"/orders/{b}/cancel/", {}).status_code == 200
    assert post(packer, f"/orders/{c}/ship/", {}).status_code == 200
    delivered = post(packer, f"/orders/{c}/deliver/", {"expected_version": "2"})
    assert delivered.status_code == 200 and 'data-status="DELIVERED"' in delivered.content.decode()
    assert post(packer, f"/orders/{c}/deliver/", {}).status_code == 409  # already delivered
    assert post(packer, f"/orders/{a}/deliver/", {"expected_version": "1"}).status_code == 409  # stale version
    sync_now()
    assert listed(packer, "PENDING") == list(reversed(placed[3:]))
    assert listed(packer, "SHIPPED") == [a]
    assert listed(packer, "CANCELLED") == [b]
    assert listed(packer, "DELIVERED") == [c]
    assert listed(packer, "ALL") == list(reversed(placed))
    assert packer.get("/orders/?status=nope").status_code == 400
    page = packer.get("/orders/?status=SHIPPED")
    assert page.status_code == 200 and f'data-order-id="{a}"' in page.content.decode()
    # one Query per write shard, the customers' profiles, the summaries and refunds (payment, fulfilment), the
    # freshness line
    assert page["X-DynamoDB-Calls"] == "7"
    assert 'value="deliver"' in page.content.decode()
    pending = packer.get("/orders/")  # PENDING by default, and /orders/pending/ still works
    assert 'value="ship"' in pending.content.decode() and 'value="cancel"' in pending.content.decode()
    assert f'data-order-id="{placed[5]}"' in packer.get("/orders/pending/").content.decode()


def test_status_list_pages_with_signed_cursors(staff: Client, placed: list[str]) -> None:
    first = staff.get("/orders/?status=PENDING&limit=4").content.decode()
    assert first.count('class="order-row"') == 4 and 'value="ship"' not in first  # no fulfilment: no actions
    more = re.search(r'class="load-more" href="([^"]+)"', first)
    assert more is not None
    url = more.group(1).replace("&amp;", "&")
    rest = staff.get(url, headers={"HX-Request": "true"}).content.decode()
    assert rest.count('class="order-row"') == 2 and "<html" not in rest
    foreign = url.replace("status=PENDING", "status=SHIPPED")
    assert staff.get(foreign).status_code == 400  # a cursor belongs to its status


def test_deliver_needs_permission_csrf_and_post(staff: Client, packer: Client, placed: list[str]) -> None:
    oid = placed[0]
    orders.order_ship(order_id=oid)
    assert post(staff, f"/orders/{oid}/deliver/", {}).status_code == 403
    assert packer.post(f"/orders/{oid}/deliver/", {}).status_code == 403  # no CSRF token
    assert packer.get(f"/orders/{oid}/deliver/").status_code == 405
    page = packer.get(f"/orders/{oid}/").content.decode()
    assert 'class="deliver"' in page
    assert post(packer, f"/orders/{oid}/deliver/", {}, htmx=False).status_code == 302
    assert orders.order_collection(oid).order.status == "DELIVERED"


def test_activity_lists_each_change_once_and_filters_by_user_and_day(
    packer: Client, fulfilment_user: User, placed: list[str]
) -> None:
    assert post(packer, f"/orders/{placed[0]}/ship/", {}).status_code == 200
    assert post(packer, f"/orders/{placed[0]}/ship/", {}).status_code == 409  # refused: no row
    assert post(packer, f"/orders/{placed[1]}/cancel/", {}).status_code == 200
    assert post(packer, f"/orders/{placed[2]}/items/2001/favourite/", {}).status_code == 200
    orders.order_ship(order_id=placed[3], actor=Actor("someone-else", "req-x"))
    sync_now()
    rows = csv_rows(packer.get("/activity/?format=csv"))
    header = rows[0]
    assert header[0] == "order_id" and "action" in header and "user" in header
    got = [(r[0], r[header.index("action")], r[header.index("user")]) for r in rows[1:]]
    # the cancel of a paid order records its refund in the same transaction: two changes, at the same moment
    assert got[:2] == [(placed[3], "ship", "someone-else"), (placed[2], "favourite", "packer")]
    assert sorted(got[2:4]) == [(placed[1], "cancel", "packer"), (placed[1], "refund", "packer")]
    assert got[4:] == [(placed[0], "ship", "packer")]
    mine = csv_rows(packer.get("/activity/?format=csv&user=packer"))
    assert [r[0] for r in mine[1:]] == [placed[2], placed[1], placed[1], placed[0]]
    today = datetime.utcnow().date().isoformat()
    response = packer.get(f"/activity/?day={today}")
    assert response.status_code == 200 and response["X-DynamoDB-Calls"] == "4"  # one Query per shard
    assert response.content.decode().count('class="activity-row"') == 5
    by_user_and_day = packer.get(f"/activity/?user=someone-else&day={today}")
    assert by_user_and_day["X-DynamoDB-Calls"] == "1"
    assert by_user_and_day.content.decode().count('class="activity-row"') == 1
    assert packer.get("/activity/?day=2001-01-01").content.decode().count('class="activity-row"') == 0
    assert packer.get("/activity/?day=yesterday").status_code == 400
    assert packer.get("/activity/?user=" + "x" * 151).status_code == 400
    history = packer.get(f"/orders/{placed[0]}/timeline/").content.decode()
    assert 'class="history-row" data-action="ship"' in history and "packer" in history


def test_bulk_ship_with_htmx_reports_each_row_and_changes_only_what_it_may(packer: Client, placed: list[str]) -> None:
    orders.order_cancel(order_id=placed[1])  # changed elsewhere
    data = {"action": "ship", "status": "PENDING", "order": placed[:3]}
    response = packer.post("/orders/bulk/", data, headers={"X-CSRFToken": csrf_of(packer), "HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and "2 done, 1 refused (409)" in html
    for oid, code in ((placed[0], 200), (placed[1], 409), (placed[2], 200)):
        assert f'<td class="outcome" id="outcome-{oid}" hx-swap-oob="true" data-code="{code}">' in html
    assert "only a PENDING order can be shipped" in html
    assert 'id="dynamodb-cost"' not in html  # the footer's panel follows htmx swaps for operators only
    assert [orders.order_collection(o).order.status for o in placed[:3]] == ["SHIPPED", "CANCELLED", "SHIPPED"]
    assert [len(orders.order_collection(o).history) for o in placed[:3]] == [1, 0, 1]


def test_bulk_without_javascript_is_a_results_page(packer: Client, staff: Client, placed: list[str]) -> None:
    data = {"action": "cancel", "order": [placed[4], placed[5]], "confirm": "yes"}
    assert staff.post("/orders/bulk/", data, headers={"X-CSRFToken": csrf_of(staff)}).status_code == 403
    response = packer.post("/orders/bulk/", data, headers={"X-CSRFToken": csrf_of(packer)})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and "2 done." in html and html.count('class="outcome-row"') == 2
    assert post(packer, "/orders/bulk/", {"action": "ship"}, htmx=False).status_code == 400  # nothing selected
    assert post(packer, "/orders/bulk/", {"action": "melt", "order": placed[0]}).status_code == 400
    assert post(packer, "/orders/bulk/", {"action": "ship", "order": "bad id!"}).status_code == 400
    assert packer.get("/orders/bulk/").status_code == 405


def test_select_page_checks_every_row(packer: Client, placed: list[str]) -> None:
    html = packer.get("/orders/?status=PENDING&select=page").content.decode()
    assert html.count(" checked>") == 6


def test_live_queue_counts_orders_after_the_newest_shown(packer: Client, placed: list[str]) -> None:
    page = packer.get("/orders/?status=PENDING").content.decode()
    poll = re.search(r'hx-get="(/orders/new/[^"]+)" hx-trigger="every 10s"', page)
    assert poll is not None
    url = poll.group(1).replace("&amp;", "&")
    quiet = packer.get(url, headers={"HX-Request": "true"})
    assert quiet.status_code == 200 and "new order" not in quiet.content.decode()
    assert quiet["X-DynamoDB-Calls"] == "4"  # one Query per shard
    orders.order_place(
        customer_id="1001", lines=[OrderLine("2001", 1)], placed_at=datetime(2026, 3, 2), order_id="late-1"
    )
    sync_now()
    news = packer.get(url, headers={"HX-Request": "true"}).content.decode()
    assert "1 new order — show them" in news
    assert 'id="dynamodb-cost"' not in news and "GSI1" not in news  # the calls: operators only
    assert packer.get("/orders/new/?status=PENDING&newest=<script>").status_code == 400
    assert packer.get("/orders/new/?status=RETURNED").status_code == 400


def test_staff_accounts_admin_is_for_superusers_only(client: Client, staff: Client, shop_table: str) -> None:
    assert client.get("/admin/").status_code == 302
    refused = staff.get("/admin/auth/user/")
    assert refused.status_code == 302 and "/admin/login/" in refused["Location"]
    assert "Staff accounts" not in staff.get("/").content.decode()
    boss = User.objects.create_superuser("boss", "boss@example.com", "pw-boss-123")
    admin = Client()
    admin.force_login(boss)
    users = admin.get("/admin/auth/user/")
    assert users.status_code == 200 and "packer" not in users.content.decode() and "boss" in users.content.decode()
    assert admin.get("/admin/auth/group/").status_code == 200
    assert 'class="staff-accounts"' in admin.get("/").content.decode()


@pytest.mark.parametrize("path", ["/orders/", "/orders/?status=SHIPPED", "/orders/new/?status=PENDING", "/activity/"])
def test_new_pages_need_a_staff_login(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=")


def test_bulk_and_deliver_need_a_login(client: Client) -> None:
    assert client.post("/orders/bulk/", {"action": "ship", "order": "o1"}).status_code in (302, 403)
    assert client.post("/orders/o1/deliver/", {}).status_code in (302, 403)


def test_the_pending_list_offers_a_carrier_and_a_tracking_number_per_row_to_packers_only(
    packer: Client, staff: Client, placed: list[str]
) -> None:
    html = packer.get("/orders/?status=PENDING").content.decode()
    assert '<label for="bulk-carrier">Carrier</label>' in html
    for oid in placed:
        assert f'name="tracking_number-{oid}" maxlength="100" aria-label="tracking number of order {oid}"' in html
    assert "tracking_number-" not in staff.get("/orders/?status=PENDING").content.decode()
    assert "bulk-carrier" not in packer.get("/orders/?status=SHIPPED").content.decode()


def test_bulk_ship_puts_the_carrier_on_all_and_each_row_its_tracking_number(packer: Client, placed: list[str]) -> None:
    # given three selected pending orders, a carrier, and tracking numbers typed in two rows (and one unselected)
    a, b, c, unselected = placed[:4]
    data = {
        "action": "ship",
        "status": "PENDING",
        "order": [a, b, c],
        "carrier": " PostNord ",
        f"tracking_number-{a}": "PN-A",
        f"tracking_number-{c}": " PN-C ",
        f"tracking_number-{unselected}": "PN-X",
    }
    # when they are shipped with htmx
    response = packer.post("/orders/bulk/", data, headers={"X-CSRFToken": csrf_of(packer), "HX-Request": "true"})
    # then each got the carrier and its own number; the done rows lose their inputs; the unselected one is untouched
    assert response.status_code == 200 and "3 done" in response.content.decode()
    assert f'<td id="tracking-{a}" hx-swap-oob="true"></td>' in response.content.decode()
    shipped = [[(s.carrier, s.tracking_number) for s in orders.order_collection(o).shipments] for o in (a, b, c)]
    assert shipped == [[("PostNord", "PN-A")], [("PostNord", None)], [("PostNord", "PN-C")]]
    assert orders.order_collection(unselected).order.status == "PENDING"


@pytest.mark.parametrize("field", ["carrier", "tracking"])
def test_bulk_ship_with_an_overlong_carrier_or_tracking_number_is_400_and_ships_nothing(
    packer: Client, placed: list[str], field: str
) -> None:
    a, b = placed[:2]
    data = {"action": "ship", "status": "PENDING", "order": [a, b]}
    data |= {"carrier": "x" * 101} if field == "carrier" else {f"tracking_number-{b}": "9" * 101}
    response = packer.post("/orders/bulk/", data, headers={"X-CSRFToken": csrf_of(packer)})
    assert response.status_code == 400
    assert "at most 100 characters" in response.content.decode()
    assert [orders.order_collection(o).order.status for o in (a, b)] == ["PENDING", "PENDING"]
