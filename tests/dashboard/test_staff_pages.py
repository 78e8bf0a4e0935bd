"""Staff pages speak of names and bare ids: no storage key (``o#1000039``, ``c#100130``), no index name (``GSI1``)
and no key attribute (``PK``, ``SK``) in what a person reads on them. Which table, index and key serve a list is
the access-pattern explorer's subject (``/patterns/``), an operators' page like ``/sync/``: both are left out here.

The pages are the tour's (``tests/dashboard/tour.py``) on its seeded shop, looked at by a staff member in every
work group (so every button and form shows) who is not an operator.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from shop import editing
from shop.audit import Actor
from tests.adminview_helpers import sync_now
from tests.dashboard import tour

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]

STORAGE_MARKS = ("o#", "c#", "p#", "w#", "i#", "sh#", "GSI")
STORAGE_WORDS = re.compile(r"\b(?:PK|SK)\b|\b[A-Z][A-Za-z]*\.[A-Z]")  # key attributes; paths like Detail.Name
STAFF_PAGES = (  # the tour's visits that are staff pages (not the explorer, the operations or the error pages)
    "home",
    "pending",
    "orders",
    "order",
    "due",
    "customer",
    "invoices",
    "product",
    "buyers",
    "warehouse",
    "catalogue",
    "history",
    "stats-daily",
    "stats-categories",
    "stats-status",
    "category",
    "activity",
    "stats-refunds",
    "returns",
    "returns-refunded",
    "return",
    "return-approved",
    "return-received",
    "return-refunded",
    "order-returns",
    "return-new",
    "order-timeline",
    "search",
)
MORE_PAGES = (  # the other status lists, another order and the history of a customer
    "/orders/?status=SHIPPED",
    "/orders/?status=CANCELLED",
    f"/orders/{tour.PENDING_ORDER}/",
    "/history/customer/1002/",
)
WORK_GROUPS = ("fulfilment", "catalogue", "customer-service", "returns")


class _VisibleText(HTMLParser):
    """The text a person reads: every text node but those of ``<script>``, ``<style>`` and ``<template>``; no tag
    and no attribute value."""

    HIDDEN = frozenset({"script", "style", "template"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return " ".join(" ".join(parser.parts).split())


def storage_marks_in(text: str) -> list[str]:
    """Each storage mark or word found, with a little of the text around it."""
    starts = [m.start() for m in STORAGE_WORDS.finditer(text)]
    for mark in STORAGE_MARKS:
        start = text.find(mark)
        while start >= 0:
            starts.append(start)
            start = text.find(mark, start + 1)
    return [text[max(0, start - 40) : start + 40] for start in sorted(starts)]


def test_visible_text_is_what_a_person_reads() -> None:
    html = (
        '<html><head><title>Order 7</title><style>p{}</style><script src="x.js"></script></head>'
        '<body><p class="o#1" aria-label="GSI1">Order <b>7</b> &amp; c&#35;1</p><template><p>sh#1</p></template>'
        "<script>var GSI = 1;</script></body></html>"
    )
    assert visible_text(html) == "Order 7 Order 7 & c#1"
    assert storage_marks_in("see c#1 and GSI2") == ["see c#1 and GSI2", "see c#1 and GSI2"]
    assert len(storage_marks_in("PK SK Detail.Name Address.ZipCode")) == 4
    assert storage_marks_in("SKU 12. Price: 1.50, Quantity") == []


def edit_names() -> None:
    """Staff edit customer 1002's name and city and product 2002's name (paths ``Address.City``, ``Detail.Name``)."""
    actor = Actor("bob")
    seen = editing.snapshot(editing.customer_target("1002"))
    editing.customer_edit(
        customer_id="1002",
        seen=seen,
        name="Grace Hopper",
        email=seen.values["Email"],
        address={"City": "Uppsala"},
        actor=actor,
    )
    seen = editing.snapshot(editing.product_target(tour.EDITED_PRODUCT))
    values = seen.values
    editing.product_edit(
        product_id=tour.EDITED_PRODUCT,
        seen=seen,
        name="Garden hose",
        description=values["Detail.Description"],
        price=values["Price"],
        category=values["Category"],
        actor=actor,
    )
    sync_now()


@pytest.fixture
def worker(db: None) -> Client:
    """A staff member in every work group, not an operator."""
    user = User.objects.create_user("wendy", "wendy@example.com", "pw-wendy-123", is_staff=True)
    user.groups.add(*(Group.objects.get_or_create(name=name)[0] for name in WORK_GROUPS))
    client = Client()
    client.force_login(user)
    return client


def test_staff_pages_show_no_storage_keys(
    worker: Client, shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tour.seed()
    edit_names()
    visits = {v.name: v for v in tour.visits(monkeypatch)}
    paths = [visits[name].path for name in STAFF_PAGES] + list(MORE_PAGES)
    problems, texts = [], {}
    for path in paths:
        response = worker.get(path)
        assert response.status_code == 200, (path, response.status_code)
        texts[path] = text = visible_text(response.content.decode())
        problems += [f"{path}: …{found}…" for found in storage_marks_in(text)]
    assert not problems, "storage keys on staff pages:\n" + "\n".join(problems)
    assert "Name: Product 2002 → Garden hose" in texts[visits["history"].path]
    assert "City: Goteborg → Uppsala" in texts["/history/customer/1002/"]
    assert "Name: Product 2002 -> Garden hose" in texts[visits["activity"].path]
