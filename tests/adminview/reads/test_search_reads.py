"""``adminview.reads.search`` on DynamoDB Local: the words are one Query under the longest, the others filter the
entries; a page stops after ``MAX_QUERIES`` of them and hands back a position; orders by tracking number, and a
customer found by the new name only once renamed."""

from __future__ import annotations

from typing import Any

import pytest

from adminview.reads import reads, search
from shop import editing, orders
from shop.audit import Actor
from shop.errors import InvalidInput
from tests import factories
from tests.adminview_helpers import sync_now


def test_a_page_makes_at_most_max_queries_and_the_next_page_goes_on(
    shop_table: str, admin_view_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given six Annas the other word filters out, then the one it keeps, read one entry a Query
    for n in range(6):
        factories.customer(str(1001 + n), name=f"Anna Smith{n}", email=f"s{n}@shop.test")
    factories.customer("1007", name="Anna Hopper", email="h@shop.test")
    sync_now()
    monkeypatch.setattr(search, "QUERY_BATCH", 1)
    calls: list[str] = []

    def counted(pk: str, **kwargs: Any) -> tuple[list[reads.Item], bool]:
        calls.append(pk)
        return reads.query(pk, **kwargs)

    monkeypatch.setattr("adminview.reads.search.query", counted)
    # when the pages are followed
    found: list[str] = []
    page = search.search(text="anna ho", limit=5)
    pages = [len(calls)]
    while True:
        found += [f.id for f in page.rows]
        if page.next is None:
            break
        calls.clear()
        page = search.search(text="anna ho", limit=5, after=page.next)
        pages.append(len(calls))
    # then no page made more than MAX_QUERIES word Queries (the first: plus its tracking one), and she is found once
    assert found == ["1007"] and len(pages) > 1
    assert pages[0] <= search.MAX_QUERIES + 1 and max(pages[1:]) <= search.MAX_QUERIES


def test_an_order_by_tracking_number_and_a_renamed_customer_by_the_new_name_only(
    shop_table: str, admin_view_table: str
) -> None:
    factories.shop_with(customers=1, products=1)
    for oid in ("42", "43"):  # one parcel, two orders of one customer
        orders.order_place(customer_id="1001", lines=[orders.OrderLine("2001", 1)], order_id=oid)
        orders.order_ship(order_id=oid, tracking_number="JD-0001 99")
    seen = editing.snapshot(editing.customer_target("1001"))
    editing.customer_edit(customer_id="1001", seen=seen, name="Ada King", email="ada@king.test", actor=Actor("bob"))
    sync_now()
    by_tracking = search.search(text="jd000199").rows
    assert [(f.kind, f.id, f.name, f.email) for f in by_tracking] == [
        ("order", "42", "Ada King", "ada@king.test"),
        ("order", "43", "Ada King", "ada@king.test"),
    ]
    assert [f.id for f in search.search(text="42").rows] == ["42"]
    assert [f.id for f in search.search(text="King Ada").rows] == ["1001"]
    assert search.search(text="lovelace").rows == [] and search.search(text="c1001").rows == []
    assert [f.id for f in search.search(text="king.test").rows] == ["1001"]
    assert sorted(o.order_id for o in search.latest_orders(customer_id="1001", count=3)) == ["42", "43"]


@pytest.mark.parametrize("text", ["a", "a b", "-.", "x" * 101])
def test_a_word_of_two_letters_or_digits_is_needed(text: str) -> None:
    with pytest.raises(InvalidInput):
        search.words_of(text)
