"""Staff notes on an order, a customer and a return, through the pages: any staff member adds one (302 back to the
page, or the notes fragment with htmx), bad text is 400 with the form in place, unknown ids 404, only the author
edits (403 for anyone else) and an edit keeps every version; each note is in /activity/."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from returns import access_patterns as rap
from returns import services
from shop import keys, notes, orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csrf_of, csv_rows

pytestmark = pytest.mark.django_db
PLACED = datetime(2026, 3, 2, 9, 0)
PAGES = {"order": "/orders/5001/", "customer": "/customers/1001/", "return": "/returns/r1/"}


@pytest.fixture
def delivered_order_with_return(shop_table: str, admin_view_table: str) -> None:
    """Order 5001 of customer 1001, delivered, with return r1 requested."""
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 2)], placed_at=PLACED, order_id="5001")
    orders.order_ship(order_id="5001", shipped_at=PLACED + timedelta(days=1))
    orders.order_deliver(order_id="5001")
    services.return_request(
        order_id="5001", lines=[services.Line("2001", 1, "Arrived damaged")], return_id="r1", requested_at=PLACED
    )


def client_of(name: str, *, staff: bool = True) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_user(name, f"{name}@example.com", f"pw-{name}-123", is_staff=staff))
    return client


@pytest.fixture
def ann(db: None) -> Client:
    return client_of("ann")


def post(client: Client, url: str, text: str, *, htmx: bool = False) -> Any:
    headers = {"X-CSRFToken": csrf_of(client)} | ({"HX-Request": "true"} if htmx else {})
    return client.post(url, {"text": text}, headers=headers)


def versions(kind: str) -> list[Any]:
    if kind == "order":
        return list(orders.order_collection("5001").notes)
    if kind == "customer":
        return list(notes.notes_of(about="customer", entity_id="1001"))
    return list(rap.return_and_notes(return_id="r1")[1])


@pytest.mark.parametrize("kind", PAGES)
def test_a_note_goes_back_to_its_page_which_shows_it_newest_first(
    ann: Client, delivered_order_with_return: None, kind: str
) -> None:
    page = PAGES[kind]
    # when ann adds two notes without htmx
    first = post(ann, page + "notes/", "  Called the customer  ")
    second = post(ann, page + "notes/", "Second <b>thought</b>")
    # then each redirects back to the page, which lists them newest first with their author
    assert first.status_code == second.status_code == 302 and first["Location"] == page + "#notes"
    html = ann.get(page).content.decode()
    assert html.index("Second &lt;b&gt;thought&lt;/b&gt;") < html.index("Called the customer")
    assert '<section id="notes"' in html and "<strong>ann</strong>" in html
    # and with htmx the answer is the notes fragment
    fragment = post(ann, page + "notes/", "Third", htmx=True)
    assert fragment.status_code == 200 and fragment.content.decode().startswith('\n<section id="notes"')
    assert [v.text for v in versions(kind)] == ["Called the customer", "Second <b>thought</b>", "Third"]


@pytest.mark.parametrize("kind", PAGES)
def test_bad_text_is_400_with_the_form_and_writes_nothing(
    ann: Client, delivered_order_with_return: None, kind: str
) -> None:
    for text, htmx in (("   ", False), ("x" * 2001, False), ("", True)):
        response = post(ann, PAGES[kind] + "notes/", text, htmx=htmx)
        html = response.content.decode()
        assert response.status_code == 400 and 'id="note-form"' in html and "errorlist" in html
    assert versions(kind) == []


@pytest.mark.parametrize("url", ["/orders/nope/notes/", "/customers/9999/notes/", "/returns/r9/notes/"])
def test_a_note_on_nothing_is_404(ann: Client, delivered_order_with_return: None, url: str) -> None:
    assert post(ann, url, "hello").status_code == 404
    assert post(ann, url, "").status_code == 404


def test_a_note_needs_a_staff_account_and_a_post(delivered_order_with_return: None, db: None) -> None:
    outsider = client_of("eve", staff=False)
    assert post(outsider, "/orders/5001/notes/", "hi").status_code == 403
    assert client_of("ann").get("/orders/5001/notes/").status_code == 405
    assert versions("order") == []


@pytest.mark.parametrize("kind", PAGES)
def test_only_the_author_edits_and_every_version_stays(
    ann: Client, delivered_order_with_return: None, kind: str
) -> None:
    page = PAGES[kind]
    post(ann, page + "notes/", "Ring at 5")
    note_id = keys.note_id(versions(kind)[0].sk)
    edit = f"{page}notes/{note_id}/edit/"
    # another staff member may not edit it, and a page shows them no edit form
    bob = client_of("bob")
    assert f'action="{edit}"' not in bob.get(page).content.decode()
    assert post(bob, edit, "Ring at 7").status_code == 403
    # the author gets 400 for bad text, then edits it
    assert post(ann, edit, " ").status_code == 400
    assert post(ann, edit, "Ring at 6").status_code == 302
    html = ann.get(page).content.decode()
    assert "Ring at 6" in html and ">edited<" in html and "Every version" in html and "Ring at 5" in html
    assert [(v.text, v.original) for v in versions(kind)] == [("Ring at 5", None), ("Ring at 6", note_id)]
    # a malformed note id is 400, an unknown one 404
    assert post(ann, f"{page}notes/bad-id/edit/", "x").status_code == 400
    assert post(ann, f"{page}notes/20200101T000000000000-00000000/edit/", "x").status_code == 404


def test_notes_and_their_edits_are_in_the_activity_list(ann: Client, delivered_order_with_return: None) -> None:
    for page in PAGES.values():
        post(ann, page + "notes/", f"note on {page}")
    note_id = keys.note_id(versions("order")[0].sk)
    post(ann, f"/orders/5001/notes/{note_id}/edit/", "note on the order, again")
    sync_now()
    header, *rows = csv_rows(ann.get("/activity/?format=csv"))
    found = [
        (row[header.index("action")], row[header.index("detail")]) for row in rows if row[header.index("user")] == "ann"
    ]
    assert all("note" in action for action, _ in found) and len(found) == 4
    details = " | ".join(detail for _, detail in found)
    assert "order 5001: note on the order, again" in details and "customer 1001: note on /customers/1001/" in details
    assert "return r1: note: note on /returns/r1/" in details
