"""The explorer in PartiQL, on DynamoDB Local: every pattern's ``?format=partiql`` statement, run with
ExecuteStatement (following NextToken), returns exactly the pattern's items; the PartiQL box runs a keyed SELECT
and refuses, before sending anything, a statement DynamoDB would run as a Scan or one that is not a SELECT."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from html import unescape
from io import StringIO
from typing import Any

import boto3
import pytest
from django.core.management import call_command
from django.test import Client

from adminview.tables import ADMIN_VIEW_TABLE
from dashboard.patterns import all_patterns, find
from dashboard.views import patterns as views
from shop import orders
from shop.models import SHOP_TABLE
from shop.order_builders import PaymentSpec
from shop.orders import OrderLine
from shop.pattern_registry import check_params
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csrf_of
from tests.samples import AWS_MODEL

pytestmark = pytest.mark.ddb_local

BOX = "/patterns/partiql/"


@pytest.fixture
def pattern_parameters(shop_table: str, admin_view_table: str) -> dict[str, dict[str, str]]:
    """AWS's sample model, two customers' orders synced into the admin view; each pattern's parameters."""
    call_command("import_workbench", str(AWS_MODEL), stdout=StringIO())
    factories.shop_with(customers=2, products=1)
    for n in range(5):
        orders.order_place(
            customer_id=f"{1001 + n % 2}",
            lines=[OrderLine("2001", 1)],
            payments=[PaymentSpec("Visa", "10.50", transaction_id=f"tx-{n}")],
            placed_at=datetime(2026, 5, 1) + timedelta(hours=n),
            order_id=f"pq{n}",
        )
    sync_now()
    profiles = find("getProfilesByCustomerIds")
    assert profiles is not None
    email = profiles.attributes(next(iter(profiles.run(customer_id="1001"))))["Email"]["S"]  # as stored
    wide = {"from": "2000-01-01", "to": "2100-12-31"}
    return {
        "getCustomerByCustomerId": {"customer_id": "12345"},
        "getProductByProductId": {"product_id": "12345"},
        "getWarehouseByWarehouseId": {"warehouse_id": "12345"},
        "getProductInventoryByProductId": {"product_id": "12345"},
        "getOrderDetailsByOrderId": {"order_id": "12345"},
        "getProductByOrderId": {"order_id": "12345"},
        "getInvoiceByOrderId": {"order_id": "12345"},
        "getShipmentByOrderId": {"order_id": "12345"},
        "getOrderByProductIdForDateRange": {"product_id": "2001", **wide},
        "getInvoiceByInvoiceId": {"invoice_id": "55443"},
        "getPaymentByInvoiceId": {"invoice_id": "55443"},
        "getShipmentDetailsByShipmentId": {"shipment_id": "98765"},
        "getShipmentByWarehouseId": {"warehouse_id": "12345"},
        "getProductInventoryByWarehouseId": {"warehouse_id": "301"},
        "getInvoiceByCustomerIdForDateRange": {"customer_id": "1001", **wide},
        "getProductsByCustomerIdForDateRange": {"customer_id": "1001", **wide},
        "getOrdersDueOnDate": {"date": "2020-06-22"},
        "getFavouritesByCustomerId": {"customer_id": "1001"},
        "getOrdersByCustomerId": {"customer_id": "1001"},
        "getPendingOrders": {},
        "getBuyersByProductId": {"product_id": "2001"},
        "getProfilesByCustomerIds": {"customer_id": "1001,1002"},
        "getOrderByTransactionId": {"transaction_id": "tx-3"},
        "getCustomerByEmail": {"email": email},
        "searchByName": {"text": "cu"},
    }


def execute_all(statement: str, parameters: list[Any], limit: int | None = 2) -> list[dict[str, Any]]:
    """Every item the statement returns, ``limit`` a page (two: NextToken is followed)."""
    client = boto3.client("dynamodb")
    kwargs: dict[str, Any] = {"Statement": statement} | ({"Parameters": parameters} if parameters else {})
    kwargs |= {"Limit": limit} if limit else {}
    items: list[dict[str, Any]] = []
    while True:
        answer: Any = client.execute_statement(**kwargs)
        items += answer["Items"]
        if "NextToken" not in answer:
            return items
        kwargs["NextToken"] = answer["NextToken"]


def test_every_patterns_statement_returns_its_items(
    pattern_parameters: dict[str, dict[str, str]], operator: Client
) -> None:
    assert {p.name for p in all_patterns()} == set(pattern_parameters)
    nonempty = 0
    for pattern in all_patterns():
        query = pattern_parameters[pattern.name]
        response = operator.get(f"/patterns/{pattern.name}/", {**query, "format": "partiql"})
        assert response.status_code == 200, (pattern.name, response.content)
        answer = response.json()
        assert set(answer) == {"statement", "parameters"}
        assert answer["statement"].startswith("SELECT ") and " WHERE " in answer["statement"]
        values = {p.name: query.get(p.query_name, "") for p in pattern.params}
        expected = [dict(pattern.attributes(i)) for i in pattern.run(**check_params(pattern.params, values))]
        got = execute_all(answer["statement"], answer["parameters"])
        assert sorted(got, key=json.dumps) == sorted(expected, key=json.dumps), pattern.name
        if " IN [" not in answer["statement"].split(" AND ")[0]:  # one partition: in the pattern's order too
            # DynamoDB Local sorts each page of an ORDER BY ... DESC alone when a Limit cuts it: read it whole.
            limit = None if " ORDER BY " in answer["statement"] else 2
            assert execute_all(answer["statement"], answer["parameters"], limit) == expected, pattern.name
        nonempty += bool(expected)
    assert nonempty >= 20


def test_the_pattern_page_shows_the_statement_beside_the_requests(
    pattern_parameters: dict[str, Any], operator: Client
) -> None:
    response = operator.get("/patterns/getOrderDetailsByOrderId/", {"order_id": "12345"})
    html = response.content.decode()
    assert response.status_code == 200
    assert 'class="partiql-statement"' in html and "ExecuteStatement" in html
    assert response.context["statement"].text.startswith(f'SELECT * FROM "{SHOP_TABLE.name}" WHERE "PK" = ?')
    box = operator.get(response.context["box_url"])
    assert box.status_code == 200 and "o#12345" in box.content.decode()  # the box, filled in
    search = operator.get("/patterns/searchByName/", {"text": "cu"})
    assert search.status_code == 200 and search.context["statement"].text.startswith("SELECT ")


def run_box(client: Client, statement: str, parameters: str = "", **extra: str) -> Any:
    data = {"statement": statement, "parameters": parameters, **extra}
    return client.post(BOX, data, HTTP_X_CSRFTOKEN=csrf_of(client))


def test_a_keyed_select_answers_its_items_and_capacity(pattern_parameters: dict[str, Any], operator: Client) -> None:
    statement = f'SELECT * FROM "{SHOP_TABLE.name}" WHERE PK = ? AND begins_with("SK", \'p#\')'
    response = run_box(operator, statement, '[{"S": "o#12345"}]')
    assert response.status_code == 200, response.content
    assert [(r[0].text, r[1].text) for r in response.context["rows"]] == [
        ("o#12345", "p#12345"),
        ("o#12345", "p#99887"),
    ]
    capacity = response.context["capacity"]  # DynamoDB reports it; DynamoDB Local reports none for PartiQL
    assert (capacity is None or capacity > 0) and "ConsumedCapacity" in response.content.decode()
    assert int(response["X-DynamoDB-Calls"]) == 1
    on_index = run_box(operator, f'SELECT PK, SK FROM "{ADMIN_VIEW_TABLE.name}"."GSI1" WHERE GSI1PK IN [\'PENDING#0\']')
    assert on_index.status_code == 200, on_index.content


def shown_keys(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<tr class="item-row"><td>([^<]*)</td><td>([^<]*)</td>', html)


def load_more_form(html: str) -> dict[str, str] | None:
    """The hidden fields of the "load more" form, as the browser would send them (None: no more pages)."""
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', html))
    return {k: unescape(v) for k, v in fields.items()} if "next_token" in fields else None


def test_load_more_follows_next_token(
    pattern_parameters: dict[str, Any], operator: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(views, "PARTIQL_PAGE", 3)
    statement = f'SELECT * FROM "{SHOP_TABLE.name}" WHERE "PK" = \'o#12345\''
    html = run_box(operator, statement).content.decode()
    seen, pages = shown_keys(html), 1
    while (form := load_more_form(html)) is not None:
        response = operator.post(BOX, form, HTTP_X_CSRFTOKEN=csrf_of(operator), HTTP_HX_REQUEST="true")
        html = response.content.decode()
        assert response.status_code == 200 and "<html" not in html
        seen += shown_keys(html)
        pages += 1
    assert len(seen) == 9 == len(set(seen)) and {pk for pk, _ in seen} == {"o#12345"} and pages > 2


@pytest.mark.parametrize(
    ("statement", "parameters", "why"),
    [
        ('SELECT * FROM "{shop}"', "", "no WHERE"),
        ('SELECT * FROM "{shop}" WHERE "SK" = \'c#12345\'', "", "partition key PK"),
        ('SELECT * FROM "{shop}" WHERE PK = ? OR SK = ?', '[{"S": "a"}, {"S": "b"}]', "OR"),
        ('SELECT * FROM "{shop}" WHERE PK <> ?', '[{"S": "a"}]', "partition key PK"),
        ('SELECT * FROM "{shop}" WHERE (PK = ? OR SK = ?)', '[{"S": "a"}, {"S": "b"}]', "partition key PK"),
        ('SELECT * FROM "{shop}"."GSI1" WHERE PK = ?', '[{"S": "o#12345"}]', "partition key GSI1-PK"),
        ('SELECT * FROM "{shop}" WHERE PK = SK', "", "partition key PK"),
        ('SELECT * FROM "Elsewhere" WHERE PK = ?', '[{"S": "a"}]', "no table"),
        ("INSERT INTO \"{shop}\" VALUE {{'PK': 'x', 'SK': 'y'}}", "", "INSERT"),
        ("UPDATE \"{shop}\" SET Name = 'x' WHERE PK = 'a' AND SK = 'b'", "", "UPDATE"),
        ("DELETE FROM \"{shop}\" WHERE PK = 'a' AND SK = 'b'", "", "DELETE"),
        ("EXISTS(SELECT * FROM \"{shop}\" WHERE PK = 'a')", "", "EXISTS"),
        ('SELECT * FROM "{shop}" WHERE PK = ?; DELETE FROM x', '[{"S": "a"}]', "cannot read"),
        ('SELECT * FROM "{shop}" WHERE PK = ?', "", "1 ? parameter(s) and 0"),
        ('SELECT * FROM "{shop}" WHERE PK = ?', '["a"]', "DynamoDB JSON"),
        ('SELECT * FROM "{shop}" WHERE PK = ?', "[{", "not JSON"),
        ("SELECT * FROM \"{shop}\" WHERE PK = 'a' AND (SK = 'b'", "", "unbalanced"),
        ("", "", "required"),
        ('SELECT * FROM "{shop}" WHERE PK = \'' + "x" * 8200 + "'", "", "8192"),
    ],
)
def test_refused_statements_answer_400_and_send_nothing(
    shop_table: str, operator: Client, statement: str, parameters: str, why: str
) -> None:
    response = run_box(operator, statement.format(shop=SHOP_TABLE.name), parameters)
    html = response.content.decode()
    assert response.status_code == 400, html
    assert response["X-DynamoDB-Calls"] == "0"
    assert 'role="alert"' in html and why in html and 'id="partiql-form"' in html
    assert "Traceback" not in html


def test_a_statement_dynamodb_refuses_is_a_400(shop_table: str, operator: Client) -> None:
    response = run_box(operator, f"SELECT * FROM \"{SHOP_TABLE.name}\" WHERE PK = 'a' ORDER BY Nope", "")
    assert response.status_code == 400 and "DynamoDB refused the statement" in response.content.decode()


def test_only_operators_may_use_the_box_and_posts_need_csrf(shop_table: str, staff: Client, operator_user: Any) -> None:
    statement = f"SELECT * FROM \"{SHOP_TABLE.name}\" WHERE PK = 'o#12345'"
    assert staff.get(BOX).status_code == 403
    assert run_box(staff, statement).status_code == 403
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(operator_user)
    assert strict.get(BOX).status_code == 200
    assert strict.post(BOX, {"statement": statement}).status_code == 403
    assert 'href="/patterns/partiql/"' in strict.get("/patterns/").content.decode()
