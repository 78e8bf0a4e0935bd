"""The access-pattern explorer on DynamoDB Local: for every pattern its CSV is ``manage.py access_pattern``'s
output (same items, same order, same values) on AWS's sample model and on generated data; "load more" pages
through without gaps or repeats; the boto3 call it shows returns the same items; bad input is a 4xx."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from datetime import datetime, timedelta
from io import StringIO
from typing import Any

import boto3
import pytest
from botocore import xform_name
from django.core.management import call_command
from django.test import Client

from dashboard.patterns import boto3_call, cli_line, find, request_json
from dashboard.responses import spreadsheet_cell
from dashboard.views.patterns import csv_line, shown_calls
from dynamo.instrumentation import Call, CallLog
from dynamo.tables import delete_table
from shop import orders, seeding
from shop.models import SHOP_TABLE
from shop.order_builders import PaymentSpec
from shop.orders import OrderLine
from shop.pattern_registry import PATTERNS, AccessPattern
from shop.plain import from_attribute_values
from tests import factories
from tests.adminview_helpers import sync_now
from tests.conftest import fresh_table
from tests.dashboard.conftest import csv_rows
from tests.samples import AWS_MODEL
from tests.shop.test_access_patterns_aws import EXAMPLES

pytestmark = pytest.mark.ddb_local


def cli(name: str, *args: str) -> list[dict[str, Any]]:
    out = StringIO()
    call_command("access_pattern", name, *args, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def query_of(pattern: AccessPattern, args: list[str]) -> dict[str, str]:
    return {p.query_name: a for p, a in zip(pattern.params, args, strict=True)}


def explorer_csv(client: Client, name: str, query: dict[str, str]) -> list[list[str]]:
    response = client.get(f"/patterns/{name}/", {**query, "format": "csv"})
    assert response.status_code == 200, response.content
    return csv_rows(response)


def assert_csv_is_cli(client: Client, name: str, args: list[str]) -> list[list[str]]:
    pattern = PATTERNS[name]
    rows = explorer_csv(client, name, query_of(pattern, args))
    expected = cli(name, *args)
    header = rows[0]
    assert header[:2] == ["PK", "SK"]
    assert header == pattern.columns()
    assert [r[:2] for r in rows[1:]] == [[i["PK"], i["SK"]] for i in expected]
    assert rows[1:] == [[str(spreadsheet_cell(v)) for v in csv_line(i, header)] for i in expected]
    for row, item in zip(rows[1:], expected, strict=True):  # every attribute the CLI printed is in the row
        assert {c for c, v in zip(header, row, strict=True) if v} == set(item)
    return rows


# --- AWS's sample model --------------------------------------------------------------------------------------


@pytest.fixture
def aws_sample(shop_table: str) -> None:
    call_command("import_workbench", str(AWS_MODEL), stdout=StringIO())


@pytest.mark.parametrize(("name", "args"), [(e[0], e[1]) for e in EXAMPLES], ids=[e[0] for e in EXAMPLES])
def test_csv_equals_the_command_on_the_aws_sample(
    aws_sample: None, operator: Client, name: str, args: list[str]
) -> None:
    rows = assert_csv_is_cli(operator, name, args)
    example = next(e for e in EXAMPLES if e[0] == name and e[1] == args)
    assert [tuple(r[:2]) for r in rows[1:]] == example[2]


def test_every_pattern_is_listed_and_has_a_page(aws_sample: None, admin_view_table: str, operator: Client) -> None:
    index = operator.get("/patterns/").content.decode()
    for name in {e[0] for e in EXAMPLES} | {"getOrdersDueOnDate", "getFavouritesByCustomerId", "getPendingOrders"}:
        assert f'data-pattern="{name}"' in index
        assert operator.get(f"/patterns/{name}/").status_code == 200  # the form (AV2 has none: it runs)


def boto3_kwargs(response: Any) -> tuple[str, dict[str, Any]]:
    (shown,) = response.context["calls"]
    code = shown["boto3"]
    method = re.search(r"client\.(\w+)\(\*\*kwargs\)", code)
    body = re.search(r"json\.loads\(r'''(.*)'''\)", code, re.S)
    assert method and body
    assert shown["cli"].startswith("aws dynamodb ")
    return method.group(1), json.loads(body.group(1))


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("getOrderDetailsByOrderId", {"order_id": "12345"}),
        ("getShipmentDetailsByShipmentId", {"shipment_id": "sh#98765"}),
        ("getInvoiceByCustomerIdForDateRange", {"customer_id": "12345", "from": "2020-06-01", "to": "2020-06-30"}),
        ("getCustomerByCustomerId", {"customer_id": "12345"}),
    ],
)
def test_the_boto3_call_shown_returns_the_same_items(
    aws_sample: None, operator: Client, name: str, query: dict[str, str]
) -> None:
    response = operator.get(f"/patterns/{name}/", query)
    assert response.status_code == 200
    method, kwargs = boto3_kwargs(response)
    answer = getattr(boto3.client("dynamodb"), method)(**kwargs)
    raw = answer["Items"] if "Items" in answer else [answer["Item"]]
    got = [(i["PK"], i["SK"]) for i in map(from_attribute_values, raw)]
    shown = [(r[0][0], r[1][0]) for r in response.context["rows"]]
    assert got == shown and got
    assert response.context["columns"][:2] == ["PK", "SK"]


INVOICES = "/patterns/getInvoiceByCustomerIdForDateRange/"


def test_bad_input_is_a_4xx_without_traceback(aws_sample: None, operator: Client) -> None:
    cases = [
        ("/patterns/noSuchPattern/", {}, 404),
        ("/patterns/getCustomerByCustomerId/", {"customer_id": ""}, 400),
        ("/patterns/getCustomerByCustomerId/", {"customer_id": "o#1"}, 400),
        ("/patterns/getCustomerByCustomerId/", {"format": "csv"}, 400),
        (INVOICES, {"customer_id": "1", "from": "2020-02-30", "to": "2020"}, 400),
        (INVOICES, {"customer_id": "1", "from": "2020-03-02", "to": "2020-03-01"}, 400),
        (INVOICES, {"customer_id": "1", "from": "2020-03-01"}, 400),
        ("/patterns/getProductInventoryByProductId/", {"product_id": "12345", "cursor": "forged"}, 400),
        ("/patterns/getProductInventoryByProductId/", {"product_id": "12345", "limit": "0"}, 400),
    ]
    for url, query, status in cases:
        response = operator.get(url, query)
        body = response.content.decode()
        assert response.status_code == status, (url, query, body)
        assert "Traceback" not in body
        assert 'role="alert"' in body


def test_a_refused_parameter_is_marked_beside_its_field(aws_sample: None, operator: Client) -> None:
    response = operator.get("/patterns/getCustomerByCustomerId/", {"customer_id": "", "limit": "0"})
    html = response.content.decode()
    assert response.status_code == 400 and 'id="pattern-form"' in html
    for name in ("customer_id", "limit"):
        control = re.search(rf'<input [^>]*name="{name}"[^>]*>', html)
        assert control is not None and f'aria-describedby="id_{name}_error"' in control.group(0)
        assert f'<ul class="errorlist" id="id_{name}_error">' in html


def test_anonymous_users_go_to_the_login_page(aws_sample: None) -> None:
    response = Client().get("/patterns/getCustomerByCustomerId/?customer_id=12345")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


# --- generated data -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seeded(ddb_local: Any) -> Iterator[list[dict[str, Any]]]:
    original = SHOP_TABLE.model.Meta.table_name
    name = fresh_table(SHOP_TABLE, "OnlineShop-explorer")
    try:
        seeding.run(seeding.plan(seeding.SeedConfig(customers=12, products=8, warehouses=2, orders=120, seed=3)))
        client = boto3.client("dynamodb")
        items: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"TableName": name}
        while True:  # test-only Scan, to choose busy subjects
            page: Any = client.scan(**kwargs)
            items += [from_attribute_values(i) for i in page["Items"]]
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        yield items
    finally:
        delete_table(SHOP_TABLE.model)
        SHOP_TABLE.model.Meta.table_name = original


def busiest(items: list[dict[str, Any]], attribute: str, prefix: str) -> str:
    counts: dict[str, int] = {}
    for item in items:
        value = item.get(attribute)
        if isinstance(value, str) and value.startswith(prefix):
            counts[value] = counts.get(value, 0) + 1
    return max(counts, key=lambda k: (counts[k], k))


def generated_args(items: list[dict[str, Any]]) -> dict[str, list[str]]:
    cid = busiest(items, "GSI2-PK", "c#")
    pid = busiest(items, "GSI1-PK", "p#")
    wid = busiest(items, "GSI2-PK", "w#")
    oid = busiest(items, "PK", "o#")
    iid = busiest(items, "GSI1-PK", "i#")
    sid = busiest(items, "GSI1-PK", "sh#")
    return {
        "getCustomerByCustomerId": [cid],
        "getProductByProductId": [pid],
        "getWarehouseByWarehouseId": [wid],
        "getProductInventoryByProductId": [pid],
        "getOrderDetailsByOrderId": [oid],
        "getProductByOrderId": [oid],
        "getInvoiceByOrderId": [oid],
        "getShipmentByOrderId": [oid],
        "getOrderByProductIdForDateRange": [pid, "2000-01-01", "2100-12-31"],
        "getInvoiceByInvoiceId": [iid],
        "getPaymentByInvoiceId": [iid],
        "getShipmentDetailsByShipmentId": [sid],
        "getShipmentByWarehouseId": [wid],
        "getProductInventoryByWarehouseId": [wid],
        "getInvoiceByCustomerIdForDateRange": [cid, "2000-01-01", "2100-12-31"],
        "getProductsByCustomerIdForDateRange": [cid, "2000-01-01", "2100-12-31"],
        "getOrdersDueOnDate": [busiest(items, "DeliveryDate", "2")],
        "getFavouritesByCustomerId": [cid],
    }  # fmt: skip


def test_csv_equals_the_command_on_generated_data(seeded: list[dict[str, Any]], operator: Client) -> None:
    args = generated_args(seeded)
    assert set(args) == set(PATTERNS)
    sizes = {name: len(assert_csv_is_cli(operator, name, a)) - 1 for name, a in args.items()}
    assert sizes["getOrderByProductIdForDateRange"] > 7 and sizes["getShipmentByWarehouseId"] > 7


@pytest.mark.parametrize("name", ["getOrderByProductIdForDateRange", "getShipmentByWarehouseId"])
def test_load_more_pages_without_gaps_or_repeats(seeded: list[dict[str, Any]], operator: Client, name: str) -> None:
    args = generated_args(seeded)[name]
    expected = [(i["PK"], i["SK"]) for i in cli(name, *args)]
    response = operator.get(f"/patterns/{name}/", {**query_of(PATTERNS[name], args), "limit": "7"})
    seen: list[tuple[str, str]] = []
    pages = 0
    while True:
        assert response.status_code == 200
        pages += 1
        seen += [(r[0][0], r[1][0]) for r in response.context["rows"]]
        if not response.context["next_url"]:
            break
        response = operator.get(response.context["next_url"], headers={"HX-Request": "true"})
        assert b"<html" not in response.content  # only the rows partial, and the requests panel out of band
        assert b'hx-swap-oob="true"' in response.content and b"ExclusiveStartKey" in response.content
    assert seen == expected and pages > 1


def test_pages_make_a_bounded_number_of_calls(seeded: list[dict[str, Any]], operator: Client) -> None:
    args = generated_args(seeded)
    for name in args:
        response = operator.get(f"/patterns/{name}/", query_of(PATTERNS[name], args[name]))
        assert response.status_code == 200
        assert int(response["X-DynamoDB-Calls"]) == 1, name


def test_find_knows_the_admin_view_patterns() -> None:
    for name in ("getOrdersByCustomerId", "getPendingOrders", "getBuyersByProductId", "getOrderByTransactionId"):
        pattern = find(name)
        assert pattern is not None and pattern.table == "admin view"


# --- the admin view's patterns ----------------------------------------------------------------------------------


def test_admin_view_patterns_page_and_stream_their_items(
    shop_table: str, admin_view_table: str, operator: Client
) -> None:
    factories.shop_with(customers=2, products=1)
    placed = []
    for n in range(5):
        oid = f"av{n}"
        orders.order_place(
            customer_id=f"{1001 + n % 2}",
            lines=[OrderLine("2001", 1)],
            payments=[PaymentSpec("Visa", "10.50", transaction_id=f"tx-{n}")],
            placed_at=datetime(2026, 5, 1) + timedelta(hours=n),
            order_id=oid,
        )
        placed.append(oid)
    sync_now()
    newest_first = [f"o#{oid}" for oid in reversed(placed)]

    def every_page(name: str, query: dict[str, str]) -> list[tuple[str, str]]:
        """The (PK, SK) of every row the pattern shows, following its Next links two rows at a time."""
        response = operator.get(f"/patterns/{name}/", {**query, "limit": "2"})
        shown: list[tuple[str, str]] = []
        while True:
            assert response.status_code == 200, response.content
            shown += [(r[0][0], r[1][0]) for r in response.context["rows"]]
            if not response.context["next_url"]:
                return shown
            response = operator.get(response.context["next_url"], headers={"HX-Request": "true"})

    pending_rows = every_page("getPendingOrders", {})
    assert [pk for pk, _ in pending_rows] == newest_first  # four shards merged, no gaps or repeats
    by_customer = every_page("getOrdersByCustomerId", {"customer_id": "1001"})
    assert {pk for pk, _ in by_customer} == {"c#1001"}
    assert [sk.rsplit("#", 1)[1] for _, sk in by_customer] == ["av4", "av2", "av0"]
    assert every_page("getBuyersByProductId", {"product_id": "2001"}) == [("b#2001", "c#1001"), ("b#2001", "c#1002")]
    assert every_page("getOrderByTransactionId", {"transaction_id": "tx-3"}) == [("t#tx-3", "o#av3")]
    profiles = every_page("getProfilesByCustomerIds", {"customer_id": "1001,c#1002,404"})
    assert [pk for pk, _ in profiles] == ["c#1001", "c#1002"]

    rows = explorer_csv(operator, "getPendingOrders", {})
    assert rows[0][:3] == ["PK", "SK", "Kind"] and [r[0] for r in rows[1:]] == newest_first
    pending = find("getPendingOrders")
    assert pending is not None and rows[0] == pending.columns()


def test_shown_code_survives_any_parameter_text() -> None:
    request = {"TableName": "t", "ExpressionAttributeValues": {":v": {"S": "a'''b\\"}}}
    namespace: dict[str, Any] = {}
    code = boto3_call("Query", request).replace('client = boto3.client("dynamodb")', "")
    exec(code.replace("response = client.query(**kwargs)", ""), namespace)
    assert namespace["kwargs"] == request


def test_each_call_is_shown_as_its_request_with_the_operation_first() -> None:
    request = {"TableName": "t", "Key": {"PK": {"S": "é'''\\"}}, "ReturnConsumedCapacity": "TOTAL"}
    call = Call("dynamodb", "GetItem", "t", None, 1, 0.5, 0.0, 1.0, request=request)
    (shown,) = shown_calls(CallLog(calls=[call]))
    assert shown["json"] == json.dumps({"operation": "GetItem", **request}, indent=2, ensure_ascii=False)
    assert shown["boto3"] == boto3_call("GetItem", request) and shown["cli"] == cli_line("GetItem", request)
    assert json.loads(request_json("Scan", {})) == {"operation": "Scan"}


def test_cli_options_are_the_operations_own_parameters() -> None:
    model = boto3.client("dynamodb", region_name="us-east-1").meta.service_model
    request = {
        "TableName": "t",
        "IndexName": "GSI1",
        "KeyConditionExpression": "#0 = :0",
        "ExpressionAttributeNames": {"#0": "GSI1-PK"},
        "ExpressionAttributeValues": {":0": {"S": "p#1 it's"}},
        "ScanIndexForward": False,
        "Limit": 4,
        "ReturnConsumedCapacity": "TOTAL",
    }
    line = cli_line("Query", request)
    shape = model.operation_model("Query").input_shape
    assert shape is not None
    members = {xform_name(m, "-") for m in shape.members}
    options = [w[2:] for w in shlex.split(line) if w.startswith("--")]
    assert "no-paginate" in options and "no-scan-index-forward" in options
    assert {o for o in options if o not in ("no-paginate", "no-scan-index-forward")} <= members
    words = shlex.split(line)
    assert json.loads(words[words.index("--expression-attribute-values") + 1]) == request["ExpressionAttributeValues"]
