"""/categories/<name>/ on DynamoDB Local: a category's orders in a range, newest first, with "load more" and a CSV
of every row, equal to what a scan implies; free-text names quoted in URLs; bad names, ranges and cursors 400;
calls that do not grow with the table."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from urllib.parse import quote

import pytest
from django.test import Client

from dashboard.display import money
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows, load_more
from tests.dashboard.numbers_shop import ODD_CATEGORY, category_orders, place, seeded

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]

RANGE = "from=2026-02-01&to=2026-03-10"
START, END = date(2026, 2, 1), date(2026, 3, 10)


@pytest.fixture(scope="module")
def category_orders_seeded(module_tables: None) -> Iterator[list[str]]:
    """The shop seeded once for the module, the pages' clock stopped meanwhile. Every list is checked against the
    shop table read from scratch (``category_orders``), so the test that adds orders leaves the others right."""
    with seeded("k") as placed:
        yield placed


def url(category: str, query: str = RANGE) -> str:
    return f"/categories/{quote(category, safe='')}/?{query}"


def every_page(staff: Client, first: str) -> list[tuple[str, str, int, str]]:
    """(order, status, units, revenue) of every row, following "load more" as htmx does."""
    response = staff.get(first)
    assert response.status_code == 200
    shown = []
    while True:
        for row in response.context["rows"]:
            cells = [cell.text for cell in row.cells]  # order, customer, date, waited, status, total, units, revenue
            shown.append((cells[0], cells[4], cells[6], cells[7]))
        more = load_more(response)
        if more is None:
            return shown
        response = staff.get(more, headers={"HX-Request": "true"})
        assert response.status_code == 200 and b"<html" not in response.content


@pytest.mark.parametrize("category", ["Books", ODD_CATEGORY, "uncategorized"])
def test_a_categorys_orders_newest_first_in_pages(
    staff: Client, category_orders_seeded: list[str], category: str
) -> None:
    want = category_orders(category, START, END)
    assert want  # the seeded shop has orders of every category in the range
    shown = every_page(staff, url(category, RANGE + "&limit=3"))
    shown_as = {oid: (status, units, money(revenue)) for oid, (status, units, revenue) in want.items()}
    assert {oid: (status, units, revenue) for oid, status, units, revenue in shown} == shown_as
    assert len(shown) == len(want)  # no order twice
    page = staff.get(url(category)).content.decode()
    assert f"<h1>Category {category.replace('&', '&amp;')}</h1>" in page


def test_rows_are_newest_first(staff: Client, category_orders_seeded: list[str]) -> None:
    response = staff.get(url("Books"))
    shown = [cell.text for row in response.context["rows"] for cell in row.cells[2:3]]
    assert shown == sorted(shown, reverse=True) and len(shown) > 3


def test_csv_streams_every_row(staff: Client, category_orders_seeded: list[str]) -> None:
    rows = csv_rows(staff.get(url(ODD_CATEGORY, RANGE + "&limit=2&format=csv")))
    assert rows[0] == [
        *("order_id", "customer_id", "date", "status", "total", "units", "revenue"),
        *("customer_name", "customer_email"),
    ]
    want = category_orders(ODD_CATEGORY, START, END)
    assert {r[0]: (r[3], int(r[5]), Decimal(r[6])) for r in rows[1:]} == want
    assert len(rows) - 1 == len(want)
    assert [r[2] for r in rows[1:]] == sorted((r[2] for r in rows[1:]), reverse=True)


def test_linked_from_the_numbers_with_its_name_quoted(staff: Client, category_orders_seeded: list[str]) -> None:
    html = staff.get("/stats/categories/?" + RANGE).content.decode()
    link = "/categories/Home%20%26%20Garden%2FTools/?from=2026-02-01&amp;to=2026-03-10"
    assert link in html
    assert staff.get(link.replace("&amp;", "&")).context["category"] == ODD_CATEGORY


@pytest.mark.parametrize(
    "path",
    [
        "/categories/%20/",
        "/categories//",
        f"/categories/{'x' * 101}/",
        "/categories/Books/?from=2026-03-10&to=2026-03-01",
        "/categories/Books/?from=March",
        "/categories/Books/?cursor=forged",
        "/categories/Books/?limit=0",
    ],
)
def test_bad_names_ranges_and_cursors_are_400(staff: Client, shop_table: str, admin_view_table: str, path: str) -> None:
    for suffix in ("", "&format=csv" if "?" in path else "?format=csv"):
        response = staff.get(path + suffix)
        assert response.status_code == 400, path + suffix
        assert b"Traceback" not in response.content


def test_a_cursor_belongs_to_its_category_and_range(staff: Client, category_orders_seeded: list[str]) -> None:
    more = load_more(staff.get(url("Books", RANGE + "&limit=2")))
    assert more is not None
    assert staff.get(more.replace("/categories/Books/", "/categories/Kitchen/")).status_code == 400
    assert staff.get(more.replace("from=2026-02-01", "from=2026-02-02")).status_code == 400


def test_calls_do_not_grow_with_the_table(staff: Client, category_orders_seeded: list[str]) -> None:
    def cost(path: str, htmx: bool = False) -> tuple[int, str | None]:
        response = staff.get(path, headers={"HX-Request": "true"} if htmx else {})
        assert response.status_code == 200
        return int(response["X-DynamoDB-Calls"]), load_more(response)

    small, more = cost(url("Books", RANGE + "&limit=2"))
    assert more is not None
    small_more, _ = cost(more, htmx=True)
    place(40, tag="m", days_back=38)
    sync_now()
    big, more = cost(url("Books", RANGE + "&limit=2"))
    assert more is not None
    big_more, _ = cost(more, htmx=True)
    # the page: freshness + one Query per write shard of the category index + one BatchGetItem of the page's order
    # summaries (their status and total) + one of the page's customers' profiles; "load more": all but freshness
    assert (small, small_more) == (big, big_more) == (1 + 4 + 1 + 1, 4 + 1 + 1)


def test_a_category_no_order_holds_is_404_and_an_empty_range_of_a_real_one_is_200(
    staff: Client, category_orders_seeded: list[str]
) -> None:
    unknown = staff.get(url("Nonexistent"))
    assert unknown.status_code == 404 and "Nonexistent" in unknown.content.decode()
    assert b'id="content-start"' in unknown.content  # the product's own error page
    assert staff.get(url("Nonexistent", RANGE + "&format=csv")).status_code == 404
    assert staff.get(url("Books", "from=2020-01-01&to=2020-01-31")).status_code == 200  # sold, not in that range
