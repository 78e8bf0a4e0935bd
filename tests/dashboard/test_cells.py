"""Table cells built in Python (``dashboard.cells``) render what a template loop would, escaped the same way."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

from boto3.dynamodb.types import TypeSerializer
from django.template import Context, Template
from django.urls import resolve, reverse
from django.utils.html import escape, format_html
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.cells import Cell, Row, cells_html, id_url, payment_list, rows_html, timestamp
from dashboard.patterns import readable, stored_cell, stored_row
from dashboard.views.sections import link
from shop.models import Payment
from shop.plain import plain_attribute
from tests.shop.test_plain import values


def test_cells_escape_like_the_template_would() -> None:
    row = [
        Cell("<b>'x'</b>"),
        Cell('{\n "a": "<i>"\n}', nested=True),
        Cell("p#1 & 2", url='/products/1/?a="1"&b=2'),
        Cell(Decimal("12.50"), numeric=True),
        Cell("note", secondary=True),
        Cell(3, numeric=True, secondary=True),
    ]
    loop = Template(
        '{% for c in row %}<td{% if c.numeric and c.secondary %} class="num secondary"{% elif c.numeric %} class="num"'
        '{% elif c.secondary %} class="secondary"{% endif %}>{% if c.url %}<a href="{{ c.url }}">'
        '{{ c.text }}</a>{% elif c.nested %}<pre class="nested">{{ c.text }}</pre>{% else %}{{ c.text }}{% endif %}'
        "</td>{% endfor %}"
    )
    assert cells_html(row) == loop.render(Context({"row": row}))
    assert escape("<b>'x'</b>") in cells_html(row)


def test_id_urls_lead_where_the_reversed_urls_lead() -> None:
    for value in ("2001", "a b", "x#y?z"):
        assert id_url("dashboard:buyers", value) == reverse("dashboard:buyers", args=[value])
    assert id_url("dashboard:order", "a&b") == "/orders/a%26b/"  # quoted where reverse() would leave it
    assert resolve(unquote(id_url("dashboard:order", "a&b"))).kwargs == {"order_id": "a&b"}  # as WSGI decodes it


def test_timestamp() -> None:
    assert timestamp(datetime(2024, 5, 1, 12, 3, 4)) == "2024-05-01 12:03:04 UTC" and timestamp("x") == ""


def test_table_rows_are_the_rows_of_cells() -> None:
    rows = [[Cell("a"), Cell(1, numeric=True)], [Cell("<b>", url="/x/")]]
    assert rows_html(rows, 'r"ow') == (
        '<tr class="r&quot;ow">' + cells_html(rows[0]) + '</tr>\n<tr class="r&quot;ow">' + cells_html(rows[1]) + "</tr>"
    )
    assert rows_html([], "x") == ""


def test_payment_list_is_the_template_loop() -> None:
    payments = [Payment(type="Visa", amount=Decimal("20.00"), transaction_id="tx<1>"), Payment(type=None, amount=None)]
    loop = Template(
        '{% load display %}<ul class="payments">{% for p in payments %}'
        '<li>{{ p.type|default:"?" }} {{ p.amount|money|default:"?" }}'
        '{% if p.transaction_id %} <span class="mono">{{ p.transaction_id }}</span>{% endif %}</li>{% empty %}'
        "<li>none</li>{% endfor %}</ul>"
    )
    for shown in (payments, []):
        assert payment_list(shown) == loop.render(Context({"payments": shown}))


def test_rows_carry_their_data_attributes_and_html_made_here_stays_as_it_is() -> None:
    made_here = format_html("<ul><li>{}</li></ul>", "x")
    row = Row([Cell(made_here), Cell("<i>")], (("order-id", 'a"b'), ("action", "ship")))
    assert rows_html([row], "order-row") == (
        '<tr class="order-row" data-order-id="a&quot;b" data-action="ship"><td><ul><li>x</li></ul></td>'
        "<td>&lt;i&gt;</td></tr>"
    )


def test_an_order_row_is_the_row_a_template_would_render() -> None:
    from adminview.reads.selectors import OrderRow
    from dashboard.lists import row_of
    from dashboard.order_lists import ORDER_ID, order_columns
    from dashboard.profiles import NOBODY
    from shop.models import Order

    pending_secondary = frozenset({"status", "items"})  # every row of a pending list is pending

    loop = Template(
        '{% load display %}<tr class="order-row" data-order-id="{{ row.order_id }}">'
        "<td><a href=\"{% url 'dashboard:order' row.order_id %}\">{{ row.order_id }}</a></td>"
        "{% if with_customer %}<td><a href=\"{% url 'dashboard:customer' row.customer_id %}\">{{ row.customer_id }}"
        "</a></td>{% endif %}"
        '<td>{{ row.date|when|default:"—" }}</td>'
        '<td{% if pending %} class="secondary"{% endif %}>{{ row.status|default:"unknown" }}</td>'
        '<td class="num">{{ row.total|money|default:"—" }}</td>'
        '<td class="num secondary">{{ row.item_count|default_if_none:"—" }}</td><td>—</td><td>—</td></tr>'
    )

    rows = [
        OrderRow("1<2", "c<1", datetime(2024, 5, 1, 12, 3, 4), "PENDING", Decimal("12.50"), 3),
        OrderRow("9", "7", None, None, None, None),
        Order(pk="o#5", sk="c#6", status="SHIPPED", total=Decimal("0.10"), item_count=1),
    ]
    for row in rows:
        data = ((ORDER_ID[0], ORDER_ID[1]((row, NOBODY))),)  # as a list page marks its rows (its customer by id)
        for with_customer in (True, False):
            expected = loop.render(Context({"row": row, "with_customer": with_customer}))
            shown = row_of(order_columns(with_customer=with_customer), (row, NOBODY), data)
            assert rows_html([shown], "order-row") == expected
        pending = loop.render(Context({"row": row, "with_customer": True, "pending": True}))  # the pending list's
        shown = row_of(order_columns(secondary=pending_secondary), (row, NOBODY), data)
        assert rows_html([shown], "order-row") == pending


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
@given(values)
def test_a_stored_attribute_shows_as_its_plain_value_would(value: Any) -> None:
    serialized = TypeSerializer().serialize(value)
    assert stored_cell(serialized) == readable(plain_attribute(serialized))
    assert stored_cell(None) == Cell("")


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
@given(st.dictionaries(st.sampled_from(["PK", "SK", "a", "b<"]), values, max_size=4))
def test_a_stored_row_is_the_cells_of_its_plain_values(item: dict[str, Any]) -> None:
    columns = ["PK", "SK", "a", "b<", "missing"]
    stored = {name: TypeSerializer().serialize(value) for name, value in item.items()}
    assert stored_row(stored, columns) == [stored_cell(stored.get(c)) for c in columns]
    plain = {c: plain_attribute(stored[c]) for c in stored}
    assert stored_row(stored, columns) == [readable(plain.get(c)) for c in columns]


def test_key_attributes_link_to_their_page() -> None:
    assert [link(v) for v in ("p#2001", "o#7", "c#1001", "w#301")] == [
        "/products/2001/",
        "/orders/7/",
        "/customers/1001/",
        "/warehouses/301/",
    ]
    assert [link(v) for v in ("sh#1", "p#1#x", "2001", 5)] == [None, None, None, None]
