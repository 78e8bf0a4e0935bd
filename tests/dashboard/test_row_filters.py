"""The row filters render what the general template tags would, escaped the same way."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from boto3.dynamodb.types import TypeSerializer
from django.http import HttpRequest
from django.template import Context, Template
from django.test import RequestFactory
from django.urls import reverse
from django.utils.html import escape
from hypothesis import given
from hypothesis import strategies as st

from dashboard.cells import Cell, id_url, payment_list, timestamp
from dashboard.templatetags.rows import cells, table_rows
from dashboard.views.common import csv_url, next_url
from shop.models import Payment
from tests.shop.test_plain import values


def test_cells_escape_like_the_template_would() -> None:
    row = [
        Cell("<b>'x'</b>"),
        Cell('{\n "a": "<i>"\n}', nested=True),
        Cell("p#1 & 2", url='/products/1/?a="1"&b=2'),
        Cell(Decimal("12.50"), numeric=True),
    ]
    loop = Template(
        '{% for c in row %}<td{% if c.numeric %} class="num"{% endif %}>{% if c.url %}<a href="{{ c.url }}">'
        '{{ c.text }}</a>{% elif c.nested %}<pre class="nested">{{ c.text }}</pre>{% else %}{{ c.text }}{% endif %}'
        "</td>{% endfor %}"
    )
    assert cells(row) == loop.render(Context({"row": row}))
    assert escape("<b>'x'</b>") in cells(row)


def test_id_urls_are_the_reversed_urls() -> None:
    for value in ("2001", "a b", "x#y?z"):
        assert id_url("dashboard:buyers", value) == reverse("dashboard:buyers", args=[value])


def test_timestamp() -> None:
    assert timestamp(datetime(2024, 5, 1, 12, 3, 4)) == "2024-05-01 12:03:04" and timestamp("x") == ""


def test_table_rows_are_the_rows_of_cells() -> None:
    rows = [[Cell("a"), Cell(1, numeric=True)], [Cell("<b>", url="/x/")]]
    assert table_rows(rows, 'r"ow') == (
        '<tr class="r&quot;ow">' + cells(rows[0]) + '</tr>\n<tr class="r&quot;ow">' + cells(rows[1]) + "</tr>"
    )
    assert table_rows([], "x") == ""


def test_payment_list_is_the_template_loop() -> None:
    payments = [Payment(type="Visa", amount=Decimal("20.00"), transaction_id="tx<1>"), Payment(type=None, amount=None)]
    loop = Template(
        '<ul class="payments">{% for p in payments %}<li>{{ p.type|default:"?" }} {{ p.amount|default_if_none:"?" }}'
        '{% if p.transaction_id %} <span class="mono">{{ p.transaction_id }}</span>{% endif %}</li>{% empty %}'
        "<li>none</li>{% endfor %}</ul>"
    )
    for shown in (payments, []):
        assert payment_list(shown) == loop.render(Context({"payments": shown}))


def test_rows_carry_their_data_attributes_and_safe_cells_stay_as_they_are() -> None:
    from django.utils.safestring import mark_safe

    from dashboard.cells import Row
    from dashboard.templatetags.rows import header_cells

    row = Row([Cell(mark_safe("<ul><li>x</li></ul>")), Cell("<i>")], (("order-id", 'a"b'), ("action", "ship")))
    assert table_rows([row], "order-row") == (
        '<tr class="order-row" data-order-id="a&quot;b" data-action="ship"><td><ul><li>x</li></ul></td>'
        "<td>&lt;i&gt;</td></tr>"
    )
    assert header_cells(["PK", "<b>"]) == "<th>PK</th><th>&lt;b&gt;</th>"


def test_an_order_row_is_the_row_template_it_replaced() -> None:
    from adminview.selectors import OrderRow
    from dashboard.views.common import order_row
    from shop.models import Order

    loop = Template(
        '{% load rows %}<tr class="order-row" data-order-id="{{ row.order_id }}">'
        '<td><a href="{{ row.order_id|link:"dashboard:order" }}">{{ row.order_id }}</a></td>'
        '{% if with_customer %}<td><a href="{{ row.customer_id|link:"dashboard:customer" }}">{{ row.customer_id }}'
        "</a></td>{% endif %}"
        '<td>{{ row.date|timestamp|default:"—" }}</td><td>{{ row.status|default:"unknown" }}</td>'
        '<td class="num">{{ row.total|default_if_none:"—" }}</td>'
        '<td class="num">{{ row.item_count|default_if_none:"—" }}</td></tr>'
    )
    rows = [
        OrderRow("1<2", "c&1", datetime(2024, 5, 1, 12, 3, 4), "PENDING", Decimal("12.50"), 3),
        OrderRow("9", "7", None, None, None, None),
        Order(pk="o#5", sk="c#6", status="SHIPPED", total=Decimal("0.10"), item_count=1),
    ]
    for row in rows:
        for with_customer in (True, False):
            expected = loop.render(Context({"row": row, "with_customer": with_customer}))
            assert table_rows([order_row(row, with_customer=with_customer)], "order-row") == expected


@given(values)
def test_a_stored_attribute_shows_as_its_plain_value_would(value: Any) -> None:
    from dashboard.patterns import readable, stored_cell
    from shop.plain import plain_attribute

    serialized = TypeSerializer().serialize(value)
    assert stored_cell(serialized) == readable(plain_attribute(serialized))
    assert stored_cell(None) == Cell("")


@given(st.dictionaries(st.sampled_from(["PK", "SK", "a", "b<"]), values, max_size=4))
def test_a_stored_row_renders_as_its_cells_would(item: dict[str, Any]) -> None:
    from dashboard.patterns import StoredRow, readable, stored_cell
    from dashboard.views.sections import link
    from shop.plain import plain_attribute

    columns = ["PK", "SK", "a", "b<", "missing"]
    stored = {name: TypeSerializer().serialize(value) for name, value in item.items()}
    for linked in (None, link, lambda text: f"/x/{text}/"):
        row = StoredRow(stored, columns, linked)
        made = [stored_cell(stored.get(c), linked) for c in columns]
        assert len(row) == 5 and list(row) == made and row[-1] == made[-1] and list(row[1:3]) == made[1:3]
        assert cells(row) == cells(made) and table_rows([row], "r") == table_rows([made], "r")
    plain = {c: plain_attribute(stored[c]) for c in stored}
    assert list(StoredRow(stored, columns, link)) == [readable(plain.get(c), link(plain.get(c))) for c in columns]


def _links_by_query_dict(request: HttpRequest, token: str) -> tuple[str, str]:
    """Next-page and CSV links made by copying and changing ``request.GET``, the definition of both."""
    query = request.GET.copy()
    query["cursor"] = token
    query.pop("format", None)
    following = f"{request.path}?{query.urlencode()}"
    query = request.GET.copy()
    query.pop("cursor", None)
    query.pop("limit", None)
    query["format"] = "csv"
    return following, f"{request.path}?{query.urlencode()}"


_QUERY_NAMES = st.sampled_from(["cursor", "limit", "format", "from", "to", "product_id", "é x", "a&b=c"])


@given(st.lists(st.tuples(_QUERY_NAMES, st.text(max_size=12)), max_size=8), st.text(min_size=1, max_size=20))
def test_paging_and_csv_links_keep_the_query_as_query_dict_would(pairs: list[tuple[str, str]], token: str) -> None:
    request = RequestFactory().get("/patterns/x/?" + urlencode(pairs))
    assert (next_url(request, token), csv_url(request)) == _links_by_query_dict(request, token)
