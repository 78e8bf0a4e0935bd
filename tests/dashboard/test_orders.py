"""The status lists (``/orders/pending/``, ``/orders/?status=``) on DynamoDB Local with the real admin view: the
customers' names, sorting and a range of order dates, their 400s and cursors, the CSV (the pending list's with the
ship-to address), how long each order has waited, and the live queue of newest-first lists."""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Any

import pytest
from django.test import Client

from dynamo import ddb_json
from dynamo.client import client_of
from shop import keys, orders
from shop.models import ShopItem
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows, load_more

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]

NAMES = {"1001": "Ada Lovelace", "1002": "Grace Hopper", "1003": "Édith Piaf"}
ORDER_COLUMNS = [
    *("order_id", "customer_id", "date", "status", "total", "item_count", "payment_status", "fulfilment_status"),
    *("customer_name", "customer_email"),
]
ADDRESS_COLUMNS = ["street", "number", "zip_code", "city", "county", "country"]


@pytest.fixture
def placed(shop_table: str, admin_view_table: str) -> list[str]:
    """Six orders, one a day at noon from 1 to 6 March 2026, oldest first, of customers 1001-1003 in turn; the
    last one shipped, the others pending."""
    factories.warehouse("301")
    for cid, name in NAMES.items():
        factories.customer(cid, name=name, email=f"{name.split()[0].lower()}@example.com")
    factories.product("2001")
    factories.stock("2001", "301", 1_000)
    tag = uuid.uuid4().hex[:6]
    ids = []
    for n in range(6):
        oid = f"l{n}-{tag}"
        orders.order_place(
            customer_id=str(1001 + n % 3),
            lines=[OrderLine("2001", 1)],
            placed_at=datetime(2026, 3, 1 + n, 12),
            order_id=oid,
        )
        ids.append(oid)
    orders.order_ship(order_id=ids[-1])
    sync_now()
    return ids


def shown(response: Any) -> list[str]:
    """The order ids of a list's rows, in their order."""
    assert response.status_code == 200, response.content[:300]
    return re.findall(r'<tr class="order-row" id="row-[^"]+" data-order-id="([^"]+)"', response.content.decode())


def test_every_row_names_its_customer_from_one_batch_read_of_the_pages_profiles(
    staff: Client, placed: list[str]
) -> None:
    # given pending orders of three customers; when the pending list is shown
    response = staff.get("/orders/pending/")
    html = response.content.decode()
    # then each row's customer is named and links to their page
    for cid, name in NAMES.items():
        assert f'<a href="/customers/{cid}/">{name}</a>' in html
    # and the calls are the list's Query per write shard, one BatchGetItem of the profiles, one of the summaries
    # and refunds the payment and fulfilment statuses follow from, and the freshness line
    assert response["X-DynamoDB-Calls"] == "7"
    shipped = staff.get("/orders/?status=SHIPPED").content.decode()
    assert f'<a href="/customers/1003/">{NAMES["1003"]}</a>' in shipped


def test_the_pending_list_is_the_pending_status_list_at_its_own_address(staff: Client, placed: list[str]) -> None:
    # when the pending list is asked for at both its addresses
    own, by_status = staff.get("/orders/pending/"), staff.get("/orders/?status=PENDING")
    # then both answer (no redirect) with the same rows in the same page: the status tabs, Pending current
    assert shown(own) == shown(by_status) == list(reversed(placed[:5]))
    for response in (own, by_status):
        html = response.content.decode()
        assert 'id="pending-orders"' in html and '<a href="/orders/pending/" aria-current="page">Pending</a>' in html
        assert '<a href="/orders/?status=SHIPPED">Shipped</a>' in html
        assert '<a href="/orders/pending/" aria-current="page">Orders</a>' in html  # one area in the top bar


def test_lists_are_newest_first_by_default_and_oldest_first_when_asked(staff: Client, placed: list[str]) -> None:
    assert shown(staff.get("/orders/pending/")) == list(reversed(placed[:5]))
    assert shown(staff.get("/orders/pending/?sort=newest")) == list(reversed(placed[:5]))
    assert shown(staff.get("/orders/pending/?sort=oldest")) == placed[:5]
    assert shown(staff.get("/orders/?status=PENDING&sort=oldest")) == placed[:5]
    oldest = staff.get("/orders/pending/?sort=oldest").content.decode()
    assert '<option value="oldest" selected>oldest first</option>' in oldest and "Oldest first" in oldest


def test_load_more_keeps_the_sort_and_the_range(staff: Client, placed: list[str]) -> None:
    # given the oldest-first list from 2 March, two rows a page
    first = staff.get("/orders/pending/?sort=oldest&from=2026-03-02&limit=2")
    seen, more = shown(first), load_more(first)
    # when "load more" is followed as htmx does
    while more:
        response = staff.get(more, headers={"HX-Request": "true"})
        assert "<html" not in response.content.decode()
        seen, more = seen + shown(response), load_more(response)
    # then every order of the range comes once, oldest first
    assert seen == placed[1:5]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("from=2026-03-02&to=2026-03-04", slice(1, 4)),  # both days included
        ("from=2026-03-03", slice(2, 5)),
        ("to=2026-03-02", slice(0, 2)),
        ("from=2026-03-03&to=2026-03-03", slice(2, 3)),
        ("from=2026-04-01", slice(0, 0)),
    ],
)
def test_a_range_of_order_dates_includes_both_days(
    staff: Client, placed: list[str], query: str, expected: slice
) -> None:
    assert shown(staff.get(f"/orders/pending/?sort=oldest&{query}")) == placed[expected]
    rows = csv_rows(staff.get(f"/orders/pending/?sort=oldest&{query}&format=csv"))
    assert [r[0] for r in rows[1:]] == placed[expected]


@pytest.mark.parametrize(
    "query",
    ["sort=sideways", "from=2026-13-01", "to=yesterday", "from=2026-03-05&to=2026-03-01", "from=2026-02-30"],
)
@pytest.mark.parametrize("path", ["/orders/pending/?", "/orders/?status=SHIPPED&"])
def test_a_bad_sort_or_date_is_a_400_page_with_the_error_in_place(
    staff: Client, placed: list[str], path: str, query: str
) -> None:
    # when the filter cannot be used
    response = staff.get(path + query)
    html = response.content.decode()
    # then the page answers 400 with its filter, the error above it and beside its control, and no rows
    assert response.status_code == 400
    assert "<h1>" in html and 'id="filter-errors"' in html and 'id="list-filter"' in html
    assert 'class="errorlist' in html.split('id="list-filter"')[1] and 'class="order-row"' not in html
    assert "Traceback" not in html
    # and its CSV is the plain 400
    export = staff.get(path + query + "&format=csv")
    assert export.status_code == 400 and not export["Content-Type"].startswith("text/csv")
    assert 'id="list-filter"' not in export.content.decode()


def test_a_cursor_is_refused_on_another_sort_or_range(staff: Client, placed: list[str]) -> None:
    # given a "load more" link of the newest-first list
    more = load_more(staff.get("/orders/pending/?limit=2"))
    assert more is not None and staff.get(more).status_code == 200
    # when its cursor is used on the oldest-first list, or on a range of dates: 400
    assert staff.get(more + "&sort=oldest").status_code == 400
    assert staff.get(more + "&from=2026-03-01").status_code == 400
    assert staff.get(more.replace("/orders/pending/?", "/orders/?status=SHIPPED&")).status_code == 400
    # and the other way round
    oldest = load_more(staff.get("/orders/pending/?sort=oldest&limit=2"))
    assert oldest is not None
    assert staff.get(oldest.replace("sort=oldest", "sort=newest")).status_code == 400


def test_the_csv_streams_the_lists_rows_in_order_with_names_and_the_pending_lists_ship_to(
    staff: Client, placed: list[str]
) -> None:
    # when the pending list's CSV is downloaded, oldest first
    rows = csv_rows(staff.get("/orders/pending/?format=csv&sort=oldest"))
    # then its header keeps the order's columns, adds the customer's name and email and where the order ships
    assert rows[0] == ORDER_COLUMNS + ADDRESS_COLUMNS
    assert [r[0] for r in rows[1:]] == placed[:5]
    first = dict(zip(rows[0], rows[1], strict=True))
    assert first["customer_id"] == "1001" and first["date"] == "2026-03-01T12:00:00"
    assert (first["customer_name"], first["customer_email"]) == ("Ada Lovelace", "ada@example.com")
    assert [first[c] for c in ADDRESS_COLUMNS] == ["Main Street", "1", "41111", "Goteborg", "", "Sweden"]
    # and the same through /orders/?status=PENDING; another status's CSV has no address
    assert csv_rows(staff.get("/orders/?status=PENDING&format=csv&sort=oldest")) == rows
    shipped = csv_rows(staff.get("/orders/?status=SHIPPED&format=csv"))
    assert shipped[0] == ORDER_COLUMNS and shipped[1][0] == placed[5] and shipped[1][8] == "Édith Piaf"


def test_each_row_says_how_long_its_order_has_waited(staff: Client, placed: list[str]) -> None:
    html = staff.get("/orders/pending/").content.decode()
    assert '<th scope="col">waited</th>' in html
    assert len(re.findall(r'<td class="num">\d+ d \d+ h</td>', html)) == 5


def test_the_live_queue_is_for_newest_first_lists_that_reach_today(packer: Client, placed: list[str]) -> None:
    assert 'id="live-queue"' in packer.get("/orders/pending/").content.decode()
    assert 'id="live-queue"' in packer.get("/orders/pending/?from=2026-03-02").content.decode()
    assert 'id="live-queue"' not in packer.get("/orders/pending/?sort=oldest").content.decode()
    assert 'id="live-queue"' not in packer.get("/orders/pending/?to=2026-03-04").content.decode()


def test_the_tabs_and_the_filter_keep_the_sort_and_range(packer: Client, placed: list[str]) -> None:
    html = packer.get("/orders/?status=SHIPPED&sort=oldest&from=2026-03-01").content.decode()
    assert '<a href="/orders/pending/?sort=oldest&amp;from=2026-03-01">Pending</a>' in html
    assert '<input type="hidden" name="status" value="SHIPPED">' in html  # the filter form stays on this list
    assert 'value="2026-03-01"' in html and '<a href="/orders/?status=SHIPPED">All, newest first</a>' in html
    select = packer.get("/orders/pending/?sort=oldest").content.decode()
    assert 'href="/orders/pending/?sort=oldest&amp;select=page" class="select-page"' in select
    refused = packer.get("/orders/pending/?sort=up&from=2026-03-01").content.decode()
    assert '<a href="/orders/?status=SHIPPED">Shipped</a>' in refused  # a refused filter is not carried along


PICK_COLUMNS = [
    "order_id",
    "date",
    "customer_name",
    "product_id",
    "product_name",
    "quantity",
    "name",
    "street",
    "city",
    "zip",
    "country",
]


def test_the_pick_list_has_one_row_per_line_of_every_pending_order_in_the_lists_sort_and_range(
    staff: Client, placed: list[str]
) -> None:
    # given a pending order of two products, one of whose lines kept no name (older data): its product's name
    factories.product("2002", name="Lamp")
    factories.stock("2002", "301", 10)
    two = f"two-{placed[0]}"
    orders.order_place(
        customer_id="1002",
        lines=[OrderLine("2001", 2), OrderLine("2002", 1)],
        placed_at=datetime(2026, 3, 7, 12),
        order_id=two,
    )
    client_of(ShopItem).update_item(
        TableName=str(ShopItem.Meta.table_name),
        Key=ddb_json.key(keys.order(two), keys.product("2002")),
        UpdateExpression="REMOVE ProductName",
    )
    sync_now()
    # when the pending list's pick list is downloaded, oldest first
    rows = csv_rows(staff.get("/orders/pending/?format=csv&lines=1&sort=oldest"))
    # then each line of each pending order is a row with its product, quantity and where it ships
    assert rows[0] == PICK_COLUMNS
    assert [(r[0], r[3], r[5]) for r in rows[1:]] == [
        *((oid, "2001", "1") for oid in placed[:5]),
        (two, "2001", "2"),
        (two, "2002", "1"),
    ]
    first = dict(zip(rows[0], rows[1], strict=True))
    assert (first["date"], first["customer_name"], first["product_name"]) == (
        "2026-03-01T12:00:00",
        "Ada Lovelace",
        "Product 2001",
    )
    assert [first[c] for c in ("name", "street", "city", "zip", "country")] == [
        "Ada Lovelace",
        "Main Street 1",
        "Goteborg",
        "41111",
        "Sweden",
    ]
    assert rows[-1][4] == "Lamp"
    # and it keeps the list's range and sort; a page size of one order still streams every row
    ranged = csv_rows(staff.get("/orders/pending/?format=csv&lines=1&from=2026-03-02&to=2026-03-03"))
    assert [r[0] for r in ranged[1:]] == [placed[2], placed[1]]
    assert csv_rows(staff.get("/orders/pending/?format=csv&lines=1&sort=oldest&limit=1")) == rows


def test_a_line_shipped_whole_stays_on_the_pick_list_with_none_left(staff: Client, placed: list[str]) -> None:
    # given a pending order of two lines, one of them shipped whole
    factories.product("2002")
    factories.stock("2002", "301", 10)
    part = f"part-{placed[0]}"
    lines = [OrderLine("2001", 2), OrderLine("2002", 1)]
    orders.order_place(customer_id="1001", lines=lines, placed_at=datetime(2026, 3, 7, 12), order_id=part)
    orders.order_ship(order_id=part, quantities={"2002": 1})
    sync_now()
    # when the pick list is downloaded
    rows = csv_rows(staff.get("/orders/pending/?format=csv&lines=1"))
    # then both lines are rows: the one not shipped with its quantity, the one shipped whole with 0
    assert [(r[3], r[5]) for r in rows[1:] if r[0] == part] == [("2001", "2"), ("2002", "0")]


def test_a_pick_list_is_the_pending_lists_only_and_lines_takes_1(staff: Client, placed: list[str]) -> None:
    assert staff.get("/orders/?status=SHIPPED&format=csv&lines=1").status_code == 400
    assert staff.get("/orders/pending/?format=csv&lines=yes").status_code == 400
    assert csv_rows(staff.get("/orders/?status=PENDING&format=csv&lines=1"))[0] == PICK_COLUMNS


@pytest.fixture
def every_status(placed: list[str]) -> list[str]:
    """The six orders in every status: the first cancelled, the fifth shipped and delivered, the sixth shipped."""
    orders.order_cancel(order_id=placed[0])
    orders.order_ship(order_id=placed[4])
    orders.order_deliver(order_id=placed[4])
    sync_now()
    return placed


def statuses(response: Any) -> dict[str, str]:
    rows = csv_rows(response)
    assert rows[0] == ORDER_COLUMNS
    return {r[0]: r[3] for r in rows[1:]}


def test_the_delivered_list_holds_the_delivered_orders(packer: Client, every_status: list[str]) -> None:
    # when the delivered list is shown, and its CSV
    response = packer.get("/orders/?status=DELIVERED")
    html = response.content.decode()
    # then it holds the delivered order, in its own tab, with no bulk action (nothing follows delivery here)
    assert shown(response) == [every_status[4]]
    assert '<a href="/orders/?status=DELIVERED" aria-current="page">Delivered</a>' in html
    assert 'id="delivered-orders"' in html and 'name="action"' not in html
    # one Query per write shard, the profiles, the summaries and refunds (payment, fulfilment), the freshness line
    assert response["X-DynamoDB-Calls"] == "7"
    assert statuses(packer.get("/orders/?status=DELIVERED&format=csv")) == {every_status[4]: "DELIVERED"}


def test_all_merges_every_status_newest_first(packer: Client, every_status: list[str]) -> None:
    # when the list of every order is shown
    response = packer.get("/orders/?status=ALL")
    html = response.content.decode()
    # then it holds each order once, whatever its status, newest first, without bulk actions
    assert shown(response) == list(reversed(every_status))
    assert "<h1>All orders</h1>" in html and '<a href="/orders/?status=ALL" aria-current="page">All</a>' in html
    assert 'name="action"' not in html
    # and it reads each listed status's write shards: 4 statuses x 4 shards, the profiles, the summaries and
    # refunds (payment, fulfilment), the freshness line
    assert response["X-DynamoDB-Calls"] == "19"
    # and its CSV streams the same rows with each order's status, in the order asked for
    found = statuses(packer.get("/orders/?status=ALL&format=csv&sort=oldest"))
    assert list(found) == every_status
    assert found == {
        every_status[0]: "CANCELLED",
        **{oid: "PENDING" for oid in every_status[1:4]},
        every_status[4]: "DELIVERED",
        every_status[5]: "SHIPPED",
    }
    export = packer.get("/orders/?status=ALL&format=csv")
    assert export["Content-Disposition"].endswith('all-orders.csv"')


@pytest.mark.parametrize(
    ("query", "expected"),
    [("sort=oldest", slice(0, 6)), ("sort=oldest&from=2026-03-04", slice(3, 6)), ("to=2026-03-02", slice(0, 2))],
)
def test_all_takes_the_sort_and_the_range(staff: Client, every_status: list[str], query: str, expected: slice) -> None:
    want = every_status[expected]
    want = want if "oldest" in query else list(reversed(want))
    assert shown(staff.get(f"/orders/?status=ALL&{query}")) == want
    assert [r[0] for r in csv_rows(staff.get(f"/orders/?status=ALL&{query}&format=csv"))[1:]] == want


def test_all_pages_across_statuses_without_duplicates_or_gaps(staff: Client, every_status: list[str]) -> None:
    # given every order's list, two rows a page, each way
    for sort, want in (("newest", list(reversed(every_status))), ("oldest", every_status)):
        first = staff.get(f"/orders/?status=ALL&sort={sort}&limit=2")
        seen, more = shown(first), load_more(first)
        while more:
            response = staff.get(more, headers={"HX-Request": "true"})
            seen, more = seen + shown(response), load_more(response)
        # then each order comes once, in order
        assert seen == want
    # and a cursor of one list is refused on another
    more = load_more(staff.get("/orders/?status=ALL&limit=2"))
    assert more is not None
    assert staff.get(more.replace("status=ALL", "status=PENDING")).status_code == 400


@pytest.mark.parametrize("status", ["nope", "all", "DELIVERED,ALL", "RETURNED"])
def test_an_unknown_status_is_a_400(staff: Client, placed: list[str], status: str) -> None:
    response = staff.get(f"/orders/?status={status}")
    assert response.status_code == 400 and "Traceback" not in response.content.decode()
    assert staff.get(f"/orders/?status={status}&format=csv").status_code == 400
    assert staff.get(f"/orders/new/?status={status}").status_code == 400


def test_the_live_queue_of_all_counts_new_orders_of_any_status(packer: Client, every_status: list[str]) -> None:
    html = packer.get("/orders/?status=ALL").content.decode()
    assert 'id="live-queue"' in html
    newest = re.search(r'hx-get="(/orders/new/\?[^"]+)"', html)
    assert newest is not None
    quiet = packer.get(newest.group(1).replace("&amp;", "&"), headers={"HX-Request": "true"})
    assert quiet.status_code == 200 and "new order" not in quiet.content.decode()
    assert quiet["X-DynamoDB-Calls"] == "16"  # one small Query per status and shard
