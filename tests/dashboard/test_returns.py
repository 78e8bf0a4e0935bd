"""The returns pages against DynamoDB Local: the queue (the admin view, synced from the returns table's stream),
a return's page and its actions (the returns group only; 409 when the status no longer allows one, 400 with the
form for bad input or a refund above what remains), and what an order, a customer and a product show of returns."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from adminview.tables import ADMIN_VIEW_TABLE, ViewItem
from dynamo.client import client_of
from returns import access_patterns as rap
from returns import keys as return_keys
from returns import services
from returns.models import ReturnItem, ReturnLine
from shop import access_patterns as ap
from shop import editing, orders
from shop.audit import Actor
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csrf_of, csv_rows, load_more

pytestmark = pytest.mark.django_db
PLACED = datetime(2026, 3, 2, 9, 0)
STAFF = Actor("rita")


@pytest.fixture
def returner(db: None) -> Client:
    """A staff member in the ``returns`` group, posting with CSRF checks."""
    user = User.objects.create_user("rita", "rita@example.com", "pw-rita-123", is_staff=True)
    user.groups.add(Group.objects.get_or_create(name="returns")[0])
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


@pytest.fixture
def finance(db: None) -> Client:
    """A staff member in the ``returns`` and ``finance`` groups: may override a refund's bound."""
    user = User.objects.create_user("fiona", "fiona@example.com", "pw-fiona-123", is_staff=True)
    user.groups.add(*(Group.objects.get_or_create(name=name)[0] for name in ("returns", "finance")))
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


@pytest.fixture
def one_delivered_order(shop_table: str, admin_view_table: str) -> None:
    """Order 5001 of customer 1001 (2 x 2001 at 10.50, 1 x 2002 at 11.50: paid 32.50), delivered."""
    factories.shop_with(customers=2, products=2, categories=("books",))
    orders.order_place(
        customer_id="1001", lines=[OrderLine("2001", 2), OrderLine("2002", 1)], placed_at=PLACED, order_id="5001"
    )
    orders.order_ship(order_id="5001", shipped_at=PLACED + timedelta(days=1))
    orders.order_deliver(order_id="5001")


def ask(return_id: str, product_id: str = "2001", *, days: int = 5) -> None:
    services.return_request(
        order_id="5001",
        lines=[services.Line(product_id, 1, "Arrived damaged")],
        requested_at=PLACED + timedelta(days=days),
        return_id=return_id,
    )


def post(client: Client, url: str, data: dict[str, str] | None = None, *, htmx: bool = False) -> Any:
    headers = {"X-CSRFToken": csrf_of(client)} | ({"HX-Request": "true"} if htmx else {})
    return client.post(url, data or {}, headers=headers)


def status(return_id: str) -> str | None:
    found = rap.return_by_id(return_id=return_id)
    return found.status if found else None


# --- the queue ----------------------------------------------------------------------------------------------


def test_the_queue_lists_open_returns_oldest_first_with_their_age(staff: Client, one_delivered_order: None) -> None:
    # given three returns requested on different days, one of them rejected since
    ask("r-late", days=9)
    ask("r-early", "2002", days=3)
    ask("r-mid", days=6)
    services.return_reject(return_id="r-mid", reason="worn", actor=STAFF)
    sync_now()
    # when staff open the queue
    response = staff.get("/returns/")
    # then the open ones are listed, oldest request first, each with how long it has waited
    assert response.status_code == 200
    listed = [row[0] for row in csv_rows(staff.get("/returns/?format=csv"))]
    assert listed == ["return_id", "r-early", "r-late"]
    html = response.content.decode()
    assert html.index('data-return-id="r-early"') < html.index('data-return-id="r-late"')
    assert "months" in html or "weeks" in html or "days" in html  # the age
    rejected = csv_rows(staff.get("/returns/?status=REJECTED&format=csv"))
    assert rejected[0] == [
        *("return_id", "order_id", "customer_id", "status", "requested"),
        *("reasons", "units", "value", "received_value", "closed", "customer_name"),
    ]
    assert [row[:9] for row in rejected[1:]] == [
        ["r-mid", "5001", "1001", "REJECTED", "2026-03-08T09:00:00", "Arrived damaged", "1", "10.50", ""]
    ]
    stored = rap.return_by_id(return_id="r-mid")
    assert stored is not None and stored.rejected is not None
    assert rejected[1][9] == stored.rejected.isoformat()  # when it closed, not how long it waited
    page = staff.get("/returns/?status=REJECTED").content.decode()
    assert '<th scope="col">closed</th>' in page.replace(' class="secondary"', "") and "waiting for" not in page


def _view_calls(client: Any) -> list[str]:
    """The names of the DynamoDB calls the admin view's client makes from now on."""
    calls: list[str] = []
    client.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
    return calls


def test_the_queue_shows_reasons_and_units_and_filters_by_reason_in_as_many_calls(
    staff: Client, one_delivered_order: None
) -> None:
    # given two returns of order 5001 for different reasons
    services.return_request(order_id="5001", lines=[services.Line("2001", 2, "SIZE")], return_id="r-size")
    services.return_request(order_id="5001", lines=[services.Line("2002", 1, "DEFECTIVE")], return_id="r-broken")
    sync_now()
    # when staff open the queue, then filter it by a reason
    calls = _view_calls(client_of(ViewItem))
    every = csv_rows(staff.get("/returns/?format=csv"))
    unfiltered = len(calls)
    only = csv_rows(staff.get("/returns/?reason=DEFECTIVE&format=csv"))
    # then each row has its reasons in words and its units, and the filter keeps the rows with that reason, in as
    # many calls
    assert every[0][:5] == ["return_id", "order_id", "customer_id", "status", "requested"]
    assert sorted(row[:1] + row[5:7] for row in every[1:]) == [
        ["r-broken", "Defective", "1"],
        ["r-size", "Wrong size", "2"],
    ]
    assert [row[0] for row in only[1:]] == ["r-broken"]
    assert len(calls) - unfiltered == unfiltered and "Scan" not in calls
    html = staff.get("/returns/?reason=SIZE").content.decode()
    assert 'data-return-id="r-size"' in html and 'data-return-id="r-broken"' not in html and "Wrong size" in html


def test_an_older_free_text_reason_is_shown_as_written_and_found_under_other(
    staff: Client, one_delivered_order: None
) -> None:
    # given an open return whose line holds free text, as lines written before the codes did, and a coded one
    services.return_request(order_id="5001", lines=[services.Line("2001", 1, "Wrong colour")], return_id="r-old")
    services.return_request(order_id="5001", lines=[services.Line("2002", 1, "WRONG_ITEM")], return_id="r-coded")
    sync_now()
    # when staff filter the open queue by OTHER, then by WRONG_ITEM
    other = csv_rows(staff.get("/returns/?status=open&reason=OTHER&format=csv"))
    wrong = csv_rows(staff.get("/returns/?status=open&reason=WRONG_ITEM&format=csv"))
    # then the free-text one is under OTHER with its words as written, the coded one under its code
    assert [row[:1] + row[5:6] for row in other[1:]] == [["r-old", "Wrong colour"]]
    assert [row[:1] + row[5:6] for row in wrong[1:]] == [["r-coded", "Wrong item sent"]]


def test_the_queue_shows_each_returns_value_at_the_prices_paid_and_what_came_back(
    staff: Client, one_delivered_order: None
) -> None:
    # given a requested return of 2 x 2001 (10.50 each), a received one of 1 x 2002 (11.50) of which nothing came
    # back beside 1 x 2001 that did, and another service's return of an order the shop lacks
    services.return_request(order_id="5001", lines=[services.Line("2001", 1, "SIZE")], return_id="r-asked")
    lines = [services.Line("2001", 1, "DAMAGED"), services.Line("2002", 1, "DEFECTIVE")]
    services.return_create(order_id="5001", lines=lines, return_id="r-back")
    counts = {"2002": services.Count(received=0)}
    services.return_receive(return_id="r-back", warehouse_id="301", counts=counts, actor=STAFF)
    ReturnItem(
        **return_keys.return_keys("r-foreign", "9999"),
        order_id="9999",
        customer_id="1001",
        status="REQUESTED",
        requested=PLACED,
        lines=[ReturnLine(product_id="2001", quantity=1, reason="SIZE")],
    ).save()
    sync_now()
    # when staff open the queue and its CSV, counting the admin view's calls
    calls = _view_calls(client_of(ViewItem))
    page = staff.get("/returns/")
    header, *rows = csv_rows(staff.get("/returns/?format=csv"))
    # then each row has its value at the prices paid and, once received, the value of what came back; a return
    # whose order's prices are unknown shows a dash; the orders' prices came in the returns' own BatchGetItem, and
    # the customers' names in one more
    assert header[:5] == ["return_id", "order_id", "customer_id", "status", "requested"]
    shown = {row[0]: (row[header.index("value")], row[header.index("received_value")]) for row in rows}
    assert shown == {"r-asked": ("10.50", ""), "r-back": ("22.00", "10.50"), "r-foreign": ("", "")}
    assert calls.count("BatchGetItem") == 4 and "Scan" not in calls  # two for the page, two for the CSV
    assert header[-1] == "customer_name" and {row[-1] for row in rows} == {"Ada Lovelace"}
    assert "Ada Lovelace" in page.content.decode() and "Ada Lovelace" in staff.get("/returns/r-back/").content.decode()
    html = page.content.decode()
    assert page.status_code == 200 and "$22.00" in html and "received value" in html
    back = html[html.index('data-return-id="r-back"') :]
    assert back.index("$22.00") < back.index("$10.50") < back.index("</tr>")


@pytest.mark.parametrize("reason", ["damaged", "NOPE", "Arrived damaged"])
def test_an_unknown_reason_is_400_with_the_form_and_its_error(
    staff: Client, one_delivered_order: None, reason: str
) -> None:
    response = staff.get("/returns/", {"reason": reason})
    html = response.content.decode()
    assert response.status_code == 400 and 'id="filter-errors"' in html and "is not a reason" in html
    assert 'id="returns-filter"' in html and 'id="returns"' not in html


def test_the_queue_pages_with_load_more(staff: Client, one_delivered_order: None) -> None:
    for n, pid in enumerate(("2001", "2001", "2002")):
        ask(f"r{n}", pid, days=3 + n)
    sync_now()
    first = staff.get("/returns/?limit=2")
    more = load_more(first)
    assert more is not None
    rest = staff.get(more, headers={"HX-Request": "true"})
    assert rest.status_code == 200 and 'data-return-id="r2"' in rest.content.decode()
    assert load_more(rest) is None
    assert staff.get(more + "&status=REQUESTED").status_code == 400  # a cursor of one list is refused on another


@pytest.mark.parametrize("query", ["status=closed", "status=requested", "format=xls", "cursor=forged", "limit=0"])
def test_a_bad_queue_parameter_is_400(staff: Client, one_delivered_order: None, query: str) -> None:
    response = staff.get(f"/returns/?{query}")
    assert response.status_code == 400 and b"Traceback" not in response.content


# --- a return and its actions -------------------------------------------------------------------------------


def test_a_return_page_shows_its_lines_order_money_and_the_actions_it_allows(
    returner: Client, one_delivered_order: None
) -> None:
    ask("r1")
    page = returner.get("/returns/r1/")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'href="/orders/5001/"' in html and 'href="/customers/1001/"' in html
    assert "Arrived damaged" in html and 'class="approve"' in html and 'id="reject-form"' in html
    assert 'id="refund-form"' not in html and 'id="receive-form"' not in html
    assert page.context["money"].remaining == Decimal("32.50")
    assert returner.get("/returns/nope/").status_code == 404
    assert returner.get("/returns/bad id/").status_code == 400


def test_staff_outside_the_returns_group_get_403_and_change_nothing(staff: Client, one_delivered_order: None) -> None:
    ask("r1")
    for action, data in (("approve", {}), ("reject", {"reason": "no"})):
        response = staff.post(f"/returns/r1/{action}/", data)
        assert response.status_code == 403
    page = staff.get("/returns/r1/").content.decode()
    assert 'class="approve"' not in page and "needs the returns group" in page
    assert status("r1") == "REQUESTED"


def test_an_action_needs_csrf(returner: Client, one_delivered_order: None) -> None:
    ask("r1")
    assert returner.post("/returns/r1/approve/").status_code == 403
    assert status("r1") == "REQUESTED"


def test_approve_receive_refund_through_the_pages(returner: Client, one_delivered_order: None) -> None:
    ask("r1")
    # approve without JavaScript: a redirect to the return
    approved = post(returner, "/returns/r1/approve/")
    assert approved.status_code == 302 and approved["Location"] == "/returns/r1/"
    # receive with htmx: the status in place, the history out of band
    received = post(returner, "/returns/r1/receive/", {"warehouse": "301"}, htmx=True)
    assert received.status_code == 200 and "Return r1 received." in received.content.decode()
    assert status("r1") == "RECEIVED" and ap.inventory_for_product(product_id="2001").items[0].quantity == 99
    # refund, the form's "Notify the customer" ticked as it comes
    form = returner.get("/returns/r1/").content.decode()
    assert re.search(r'<input type="checkbox" name="notify"[^>]*checked', form)
    refunded = post(returner, "/returns/r1/refund/", {"amount": "10.50", "reference": "pi_42", "notify": "on"})
    assert refunded.status_code == 302
    page = returner.get("/returns/r1/").content.decode()
    assert "REFUNDED" in page and "pi_42" in page
    (told,) = orders.order_collection("5001").notifications
    assert (told.kind, told.detail) == ("refunded", "10.50")
    assert [e.action for e in reversed(orders.order_collection("5001").history)] == [
        "return-approve",
        "return-receive",
        "refund",
    ]
    # each is in the activity list with the return's order id
    sync_now()
    header, *rows = csv_rows(returner.get("/activity/?format=csv"))
    done = {(row[0], row[header.index("action")]) for row in rows}
    assert {("5001", "return-approve"), ("5001", "return-receive"), ("5001", "refund")} <= done


def test_an_action_the_status_no_longer_allows_is_409_and_changes_nothing(
    returner: Client, one_delivered_order: None
) -> None:
    ask("r1")
    services.return_reject(return_id="r1", reason="worn", actor=STAFF)
    for action, data in (
        ("approve", {}),
        ("reject", {"reason": "again"}),
        ("receive", {"warehouse": "301"}),
        ("refund", {"amount": "1.00", "reference": "x"}),
    ):
        response = post(returner, f"/returns/r1/{action}/", data)
        assert response.status_code == 409, action
        assert "only a" in response.content.decode()
    found = rap.return_by_id(return_id="r1")
    assert found is not None and (found.status, found.reason) == ("REJECTED", "worn")
    assert rap.refunds_for_order(order_id="5001").items == []


def test_bad_input_is_400_with_the_form_and_its_errors_in_place(returner: Client, one_delivered_order: None) -> None:
    ask("r1")
    rejected = post(returner, "/returns/r1/reject/", {"reason": "   "})
    assert rejected.status_code == 400 and 'id="reject-form"' in rejected.content.decode()
    assert rejected.context["reject_form"].errors["reason"]
    services.return_approve(return_id="r1", actor=STAFF)
    unknown = post(returner, "/returns/r1/receive/", {"warehouse": "399"})
    assert unknown.status_code == 400 and "there is no warehouse 399" in str(unknown.context["receive_form"].errors)
    assert unknown.context["receive_form"]["warehouse"].value() == "399"  # the input kept
    malformed = post(returner, "/returns/r1/receive/", {"warehouse": "w#3 01"})
    assert malformed.status_code == 400
    assert status("r1") == "APPROVED"


def test_a_refund_above_what_remains_is_400_and_the_exact_rest_is_accepted(
    finance: Client, one_delivered_order: None
) -> None:
    ask("r1")
    ask("r2", "2002")
    for rid in ("r1", "r2"):
        services.return_approve(return_id=rid, actor=STAFF)
        services.return_receive(return_id=rid, warehouse_id="301", actor=STAFF)
    goodwill = {"override": "yes", "reason": "goodwill"}
    returner = finance
    assert post(returner, "/returns/r1/refund/", {"amount": "20.00", "reference": "pi_1"} | goodwill).status_code == 302
    over = post(returner, "/returns/r2/refund/", {"amount": "12.51", "reference": "pi_2"} | goodwill, htmx=True)
    assert over.status_code == 400 and "12.50 left to refund" in over.content.decode()
    assert 'id="refund-form"' in over.content.decode() and 'value="12.51"' in over.content.decode()
    assert status("r2") == "RECEIVED" and len(rap.refunds_for_order(order_id="5001").items) == 1
    for bad in ("0", "1.001", "ten", ""):
        assert post(returner, "/returns/r2/refund/", {"amount": bad, "reference": "pi_2"}).status_code == 400
    assert post(returner, "/returns/r2/refund/", {"amount": "12.50", "reference": ""}).status_code == 400
    assert post(returner, "/returns/r2/refund/", {"amount": "12.50", "reference": "pi_2"} | goodwill).status_code == 302
    assert status("r2") == "REFUNDED"


# --- creating, receiving per line, refunding within what came back ----------------------------------------


def test_the_create_return_page_shows_each_line_and_makes_an_approved_return(
    returner: Client, one_delivered_order: None
) -> None:
    ask("r0")  # 1 x 2001 already in a return
    page = returner.get("/orders/5001/returns/new/")
    assert page.status_code == 200
    lines = {line.product_id: (line.delivered, line.returned) for line in page.context["form"].lines}
    assert lines == {"2001": (2, 1), "2002": (1, 0)}
    html = page.content.decode()
    assert 'name="quantity-2001"' in html and 'name="reason-2002"' in html and "Arrived damaged" in html
    made = post(
        returner,
        "/orders/5001/returns/new/",
        {
            "quantity-2001": "1",
            "reason-2001": "SIZE",
            "quantity-2002": "1",
            "reason-2002": "OTHER",
            "reason_text-2002": "bought twice",
        },
    )
    assert made.status_code == 302
    rid = made["Location"].split("/")[-2]
    found = rap.return_by_id(return_id=rid)
    assert found is not None and found.status == "APPROVED"
    assert [(line.product_id, line.quantity, line.reason, line.reason_text) for line in found.lines] == [
        ("2001", 1, "SIZE", None),
        ("2002", 1, "OTHER", "bought twice"),
    ]
    shown = returner.get(made["Location"]).content.decode()
    assert "Wrong size" in shown and "Other: bought twice" in shown and 'id="receive-form"' in shown
    sync_now()
    header, *rows = csv_rows(returner.get("/activity/?format=csv"))
    assert ("5001", "return-create") in {(row[0], row[header.index("action")]) for row in rows}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"quantity-2001": "x", "reason-2001": "SIZE"}, "quantity-2001"),
        ({"quantity-2001": "-1", "reason-2001": "SIZE"}, "quantity-2001"),
        ({"quantity-2001": "1.5", "reason-2001": "SIZE"}, "quantity-2001"),
        ({"quantity-2001": "3", "reason-2001": "SIZE"}, "quantity-2001"),  # 2 delivered
        ({"quantity-2001": "1", "reason-2001": "BORED"}, "reason-2001"),
        ({"quantity-2001": "1"}, "reason-2001"),
        ({"quantity-2001": "1", "reason-2001": "OTHER"}, "reason_text-2001"),
        ({"quantity-2001": "0", "quantity-2002": "0"}, "__all__"),
        ({}, "__all__"),
    ],
)
def test_a_bad_return_is_400_with_the_error_beside_its_field(
    returner: Client, one_delivered_order: None, data: dict[str, str], field: str
) -> None:
    response = post(returner, "/orders/5001/returns/new/", data)
    assert response.status_code == 400 and 'id="return-new-form"' in response.content.decode()
    assert response.context["form"].errors[field]
    assert rap.returns_for_order(order_id="5001").items == []


def test_creating_a_return_is_for_the_returns_group_and_delivered_orders(
    returner: Client, staff: Client, packer: Client, one_delivered_order: None
) -> None:
    assert 'id="create-return"' in returner.get("/orders/5001/").content.decode()
    assert 'id="create-return"' not in staff.get("/orders/5001/").content.decode()
    assert staff.get("/orders/5001/returns/new/").status_code == 403
    assert staff.post("/orders/5001/returns/new/", {"quantity-2001": "1", "reason-2001": "SIZE"}).status_code == 403
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="5002")
    assert 'id="create-return"' not in returner.get("/orders/5002/").content.decode()
    refused = post(returner, "/orders/5002/returns/new/", {"quantity-2001": "1", "reason-2001": "SIZE"})
    assert refused.status_code == 409
    assert rap.returns_for_order(order_id="5002").items == []
    assert returner.get("/orders/nope/returns/new/").status_code == 404


def test_receiving_proposes_and_restocks_each_line_into_the_warehouse_it_shipped_from(
    returner: Client, one_delivered_order: None
) -> None:
    # given order 5003 split across warehouses: 2001 shipped from 301, 2002 from 303 (the only one holding it)
    factories.warehouse("303")
    editing.stock_adjust(product_id="2002", warehouse_id="301", delta=-99, reason="count", actor=STAFF)
    factories.stock("2002", "303", 5)
    lines = [OrderLine("2001", 1), OrderLine("2002", 1)]
    orders.order_place(customer_id="1001", lines=lines, placed_at=PLACED, order_id="5003")
    orders.order_ship(order_id="5003", shipped_at=PLACED + timedelta(days=1))
    orders.order_deliver(order_id="5003")
    services.return_create(
        order_id="5003", lines=[services.Line("2001", 1, "SIZE"), services.Line("2002", 1, "SIZE")], return_id="r3"
    )
    # when staff open the return, then receive it as the form proposes
    form = returner.get("/returns/r3/").context["receive_form"]
    proposed = {name: form[name].value() for name in ("warehouse", "warehouse-2001", "warehouse-2002")}
    bad = post(returner, "/returns/r3/receive/", {"warehouse": "301", "warehouse-2001": "w#3 01"})
    done = post(returner, "/returns/r3/receive/", {k: str(v) for k, v in proposed.items()})
    # then each line was proposed, and went back, where it shipped from
    assert proposed == {"warehouse": "301", "warehouse-2001": "301", "warehouse-2002": "303"}
    assert bad.status_code == 400 and bad.context["receive_form"].errors["warehouse-2001"]
    assert done.status_code == 302
    stock = {(row.warehouse_id, row.quantity) for row in ap.inventory_for_product(product_id="2002").items}
    assert stock == {("301", 0), ("303", 5)}


def test_receiving_per_line_restocks_part_and_shows_the_damaged(returner: Client, one_delivered_order: None) -> None:
    services.return_create(order_id="5001", lines=[services.Line("2001", 2, "DAMAGED")], return_id="r1")
    form = returner.get("/returns/r1/").context["receive_form"]
    assert form["warehouse"].value() == "301" and "301" in str(form["warehouse"])  # the warehouse it shipped from
    bad = post(returner, "/returns/r1/receive/", {"warehouse": "301", "received-2001": "1", "restocked-2001": "2"})
    assert bad.status_code == 400 and bad.context["receive_form"].errors["restocked-2001"]
    over = post(returner, "/returns/r1/receive/", {"warehouse": "301", "received-2001": "3"})
    assert over.status_code == 400 and over.context["receive_form"].errors["received-2001"]
    assert status("r1") == "APPROVED" and ap.inventory_for_product(product_id="2001").items[0].quantity == 98
    done = post(returner, "/returns/r1/receive/", {"warehouse": "301", "received-2001": "2", "restocked-2001": "1"})
    assert done.status_code == 302
    assert ap.inventory_for_product(product_id="2001").items[0].quantity == 99
    page = returner.get("/returns/r1/")
    (row,) = page.context["lines"]
    assert [cell.text for cell in row[-3:]] == [2, 1, 1]  # received, restocked, damaged


def test_a_refund_is_bounded_by_what_came_back_unless_finance_overrides(
    returner: Client, finance: Client, one_delivered_order: None
) -> None:
    services.return_create(order_id="5001", lines=[services.Line("2001", 2, "DAMAGED")], return_id="r1")
    # not received: the bound is 0.00 and a keep-it refund needs the override
    page = returner.get("/returns/r1/")
    assert page.context["returned"].bound == Decimal(0) and 'id="refund-form"' in page.content.decode()
    assert 'name="override"' not in page.content.decode()  # not offered to who may not use it
    kept = post(returner, "/returns/r1/refund/", {"amount": "21.00", "reference": "pi_1"})
    assert kept.status_code == 400 and "worth 0.00" in str(kept.context["refund_form"].errors["amount"])
    forbidden = post(
        returner, "/returns/r1/refund/", {"amount": "21.00", "reference": "pi_1", "override": "yes", "reason": "x"}
    )
    assert forbidden.status_code == 403
    no_reason = post(finance, "/returns/r1/refund/", {"amount": "21.00", "reference": "pi_1", "override": "yes"})
    assert no_reason.status_code == 400 and no_reason.context["refund_form"].errors["reason"]
    assert status("r1") == "APPROVED"
    # received: 1 of 2 came back, so 10.50 is the bound, proposed on the form with how it was computed
    services.return_receive(return_id="r1", warehouse_id="301", counts={"2001": services.Count(received=1)})
    page = returner.get("/returns/r1/")
    assert page.context["refund_form"]["amount"].value() == "10.50" and 'id="refund-bound"' in page.content.decode()
    assert post(returner, "/returns/r1/refund/", {"amount": "10.51", "reference": "pi_1"}).status_code == 400
    # finance overrides, with the reason kept on the refund and in the audit trail
    done = post(
        finance, "/returns/r1/refund/", {"amount": "21.00", "reference": "pi_1", "override": "yes", "reason": "keep it"}
    )
    assert done.status_code == 302 and status("r1") == "REFUNDED"
    (refund,) = rap.refunds_for_order(order_id="5001").items
    assert refund.override == "keep it"
    assert "override: keep it" in (orders.order_collection("5001").history[0].detail or "")
    assert "refunded on" in returner.get("/returns/r1/").content.decode()


# --- the order, the customer, the product -------------------------------------------------------------------


def test_the_order_page_shows_returns_refunds_and_what_remains(packer: Client, one_delivered_order: None) -> None:
    ask("r1")
    services.return_approve(return_id="r1", actor=STAFF)
    services.return_receive(return_id="r1", warehouse_id="301", actor=STAFF)
    services.return_refund(return_id="r1", amount="10.50", reference="pi_9", actor=STAFF)
    response = packer.get("/orders/5001/")
    html = response.content.decode()
    assert response.status_code == 200 and response["X-DynamoDB-Calls"] == "4"
    assert 'data-return-id="r1"' in html and "pi_9" in html
    money = response.context["order_money"]
    assert (money.paid, money.refunded, money.remaining) == (Decimal("32.50"), Decimal("10.50"), Decimal("22.00"))


def test_cancelling_a_paid_order_on_its_page_or_in_bulk_refunds_it(packer: Client, one_delivered_order: None) -> None:
    for oid in ("6001", "6002"):
        orders.order_place(customer_id="1002", lines=[OrderLine("2001", 1)], order_id=oid)
    assert post(packer, "/orders/6001/cancel/", {"expected_version": "1"}).status_code == 302
    bulk = post(packer, "/orders/bulk/", {"action": "cancel", "order": "6002", "status": "PENDING", "confirm": "yes"})
    assert bulk.status_code == 200
    for oid in ("6001", "6002"):
        assert orders.order_collection(oid).order.status == "CANCELLED"
        assert [r.amount for r in rap.refunds_for_order(order_id=oid).items] == [Decimal("10.50")]
    page = packer.get("/orders/6001/")
    assert page.context["order_money"].remaining == Decimal("0")


def test_the_customer_page_lists_their_returns(staff: Client, one_delivered_order: None) -> None:
    ask("r1")
    sync_now()
    html = staff.get("/customers/1001/").content.decode()
    assert 'id="customer-returns"' in html and 'data-return-id="r1"' in html
    assert "No returns." in staff.get("/customers/1002/").content.decode()


def test_a_closed_return_on_the_customer_page_says_how_and_when_it_closed(
    staff: Client, one_delivered_order: None
) -> None:
    # given a rejected return, a refunded one and an open one of customer 1001
    ask("r-no")
    services.return_reject(return_id="r-no", reason="worn", actor=STAFF)
    ask("r-paid", "2002", days=6)
    services.return_approve(return_id="r-paid", actor=STAFF)
    services.return_receive(return_id="r-paid", warehouse_id="301", actor=STAFF)
    services.return_refund(return_id="r-paid", amount="11.50", reference="rf-1", actor=STAFF)
    ask("r-open", days=7)
    sync_now()
    # when staff open the customer's page
    html = staff.get("/customers/1001/").content.decode()
    # then each closed one says how and when it closed, the open one how long it has waited
    rows = {rid: html.split(f'data-return-id="{rid}"')[1].split("</tr>")[0] for rid in ("r-no", "r-paid", "r-open")}
    closed = {rid: re.search(r"(rejected|refunded) (\d{4}-\d{2}-\d{2}[^<]*)<", row) for rid, row in rows.items()}
    assert closed["r-no"] is not None and closed["r-no"][1] == "rejected"
    assert closed["r-paid"] is not None and closed["r-paid"][1] == "refunded"
    assert closed["r-open"] is None and "waiting" not in rows["r-no"] + rows["r-paid"]
    assert re.search(r"\d+.(minute|hour|day|month|year)", rows["r-open"])


def test_the_product_page_shows_its_return_rate_with_the_units_restocked_and_damaged(
    staff: Client, one_delivered_order: None
) -> None:
    ask("r1")
    services.return_approve(return_id="r1", actor=STAFF)
    counts = {"2001": services.Count(received=1, restocked=0)}
    services.return_receive(return_id="r1", warehouse_id="301", counts=counts, actor=STAFF)
    sync_now()
    rate = staff.get("/products/2001/").context["return_rate"]
    assert (rate.returned, rate.sold, rate.percent) == (1, 2, Decimal("50.0"))
    assert (rate.restocked, rate.damaged) == (0, 1)
    html = staff.get("/products/2001/").content.decode()
    assert "1 of 2 units sold (50.0 %)" in html
    assert '<dd id="returned-restocked">0</dd>' in html and '<dd id="returned-damaged">1</dd>' in html


def test_a_returns_page_without_an_admin_view_names_its_customer_by_id(
    staff: Client, one_delivered_order: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a return, and an admin view that cannot be read (its table is not there)
    services.return_request(order_id="5001", lines=[services.Line("2001", 1, "SIZE")], return_id="r-alone")
    monkeypatch.setattr(ADMIN_VIEW_TABLE.model.Meta, "table_name", f"AdminView-none-{uuid.uuid4().hex[:8]}")
    # when staff open it
    page = staff.get("/returns/r-alone/")
    # then the page, which reads the view only for the customer's name, shows the customer by id
    assert page.status_code == 200
    assert '<a href="/customers/1001/">1001</a>' in page.content.decode()
