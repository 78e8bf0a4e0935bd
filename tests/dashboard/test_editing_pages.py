"""The edit forms on DynamoDB Local, as a browser uses them: GET the form, change the visible fields, POST every
field back. Each save changes only the edited attributes (raw items compared before and after), a stale form gets
409, bad input 400 and staff outside the editing groups 403, all three changing nothing."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows
from tests.dashboard.edit_helpers import changed, form_fields, member, raw
from tests.samples import AWS_MODEL

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]


@pytest.fixture
def aws(shop_table: str) -> None:
    call_command("import_workbench", str(AWS_MODEL), stdout=StringIO())


@pytest.fixture
def catalogue() -> Client:
    return member("cat", "catalogue")


@pytest.fixture
def service() -> Client:
    return member("cs", "customer-service")


# --- products ---------------------------------------------------------------------------------------------


def test_a_price_edit_through_the_form_changes_only_the_price(aws: None, catalogue: Client) -> None:
    before = raw("p#12345")
    fields = form_fields(catalogue, "/products/12345/edit/")
    assert {"name", "description", "price", "category", "seen", "csrfmiddlewaretoken"} <= set(fields)
    assert (fields["name"], fields["price"]) == ("Options Open", "100")
    response = catalogue.post("/products/12345/edit/", fields | {"price": "89.90"})
    assert response.status_code == 302 and response["Location"] == "/products/12345/"
    after = raw("p#12345")
    assert changed(before, after) == {"Price", "Version"} and after and after["Price"] == {"S": "89.90"}
    page = catalogue.get("/products/12345/").content.decode()
    assert "Saved: Price" in page and "100 → 89.90" in page


def test_a_stale_product_form_gets_409_with_what_changed_and_a_fresh_form(aws: None, catalogue: Client) -> None:
    first = form_fields(catalogue, "/products/12345/edit/")
    second = form_fields(catalogue, "/products/12345/edit/")
    assert catalogue.post("/products/12345/edit/", second | {"price": "95"}).status_code == 302
    before = raw("p#12345")
    stale = catalogue.post("/products/12345/edit/", first | {"name": "Mine"})
    assert stale.status_code == 409 and raw("p#12345") == before
    html = stale.content.decode()
    assert 'id="conflict"' in html and "<td>price</td><td>100</td><td>95</td>" in html
    assert 'value="95"' in html  # the fresh form shows the current price


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"price": "1.999"}, "decimal places"),
        ({"price": "-1"}, "greater than or equal to 0"),
        ({"price": "abc"}, "Enter a number"),
        ({"price": "1e3"}, "no exponent"),
        ({"price": "12.345"}, "decimal places"),
        ({"price": "12,50"}, "Enter a number"),
        ({"name": ""}, "required"),
        ({"name": "x" * 201}, "at most 200 characters"),
        ({"seen": "forged"}, "altered"),
    ],
)
def test_bad_product_input_is_400_with_the_fields_error_and_writes_nothing(
    aws: None, catalogue: Client, change: dict[str, str], message: str
) -> None:
    before = raw("p#12345")
    response = catalogue.post("/products/12345/edit/", form_fields(catalogue, "/products/12345/edit/") | change)
    assert response.status_code == 400 and message in response.content.decode()
    assert raw("p#12345") == before


def test_hostile_text_is_stored_as_typed_and_shown_escaped(aws: None, catalogue: Client) -> None:
    hostile = '=HYPERLINK("http://x")<script>alert("x")</script>\x1b[2J'

    fields = form_fields(catalogue, "/products/12345/edit/")
    assert catalogue.post("/products/12345/edit/", fields | {"description": hostile}).status_code == 302
    stored = raw("p#12345")
    assert stored and stored["Detail"]["M"]["Description"] == {"S": hostile}
    html = catalogue.get("/products/12345/").content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    rows = csv_rows(catalogue.get("/history/product/12345/?format=csv"))
    assert rows[1][3:6] == ["Detail.Description", "The latest album", "'" + hostile]  # no formula in a spreadsheet


# --- customers -----------------------------------------------------------------------------------------------


def test_a_customer_edit_with_only_the_contract_fields_leaves_the_address(
    shop_table: str, admin_view_table: str, service: Client
) -> None:
    factories.customer("1001")
    before = raw("c#1001")
    fields = form_fields(service, "/customers/1001/edit/")
    posted = {k: fields[k] for k in ("csrfmiddlewaretoken", "seen", "name", "email")}
    response = service.post("/customers/1001/edit/", posted | {"name": "Ada King", "email": "ada@king.example"})
    assert response.status_code == 302
    after = raw("c#1001")
    assert changed(before, after) == {"Name", "Email"} and after and after["Address"] == before["Address"]  # type: ignore[index]


def test_an_email_another_customer_holds_is_409_naming_them(
    shop_table: str, admin_view_table: str, service: Client
) -> None:
    factories.customer("1001")
    factories.customer("1002")
    theirs = form_fields(service, "/customers/1002/edit/")
    assert service.post("/customers/1002/edit/", theirs | {"name": "Grace"}).status_code == 302  # claims its email
    before = raw("c#1001")
    response = service.post(
        "/customers/1001/edit/", form_fields(service, "/customers/1001/edit/") | {"email": "C1002@example.com"}
    )
    assert response.status_code == 409 and "customer 1002" in response.content.decode()
    assert raw("c#1001") == before


def test_the_email_lookup_and_the_buyers_follow_a_customer_edit(
    shop_table: str, admin_view_table: str, service: Client
) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 1)], order_id="o1")
    fields = form_fields(service, "/customers/1001/edit/")
    assert (
        service.post("/customers/1001/edit/", fields | {"name": "Ada King", "email": "ada@king.example"}).status_code
        == 302
    )
    sync_now()
    found = service.get("/go/?kind=email&id=ada@king.example")
    assert found.status_code == 302 and found["Location"] == "/customers/1001/"
    assert service.get("/go/?kind=email&id=c1001@example.com").status_code == 404
    buyers = csv_rows(service.get("/products/2001/buyers/?format=csv"))
    assert buyers[1][:3] == ["1001", "Ada King", "ada@king.example"]


# --- stock ----------------------------------------------------------------------------------------------------


def test_setting_and_adjusting_stock(aws: None, catalogue: Client) -> None:
    before = raw("p#12345", "w#12345")
    assert 'href="/products/12345/stock/12345/"' in catalogue.get("/products/12345/").content.decode()
    assert 'href="/products/99887/stock/12345/"' in catalogue.get("/warehouses/12345/").content.decode()
    fields = form_fields(catalogue, "/products/12345/stock/12345/")
    assert fields["quantity"] == "50"
    assert catalogue.post("/products/12345/stock/12345/", fields | {"quantity": "60"}).status_code == 302
    after = raw("p#12345", "w#12345")
    assert changed(before, after) == {"Quantity"} and after and after["Quantity"] == {"S": "60"}
    stale = catalogue.post("/products/12345/stock/12345/", fields | {"quantity": "70"})
    assert stale.status_code == 409 and raw("p#12345", "w#12345") == after
    adjust = form_fields(catalogue, "/products/12345/stock/12345/", form_id="adjust-form")
    done = catalogue.post("/products/12345/stock/12345/adjust/", adjust | {"delta": "-5", "reason": "broken"})
    assert done.status_code == 302 and raw("p#12345", "w#12345")["Quantity"] == {"S": "55"}  # type: ignore[index]
    for bad in ({"quantity": "-1"}, {"quantity": "x"}, {"quantity": "1.5"}):
        response = catalogue.post(
            "/products/12345/stock/12345/", form_fields(catalogue, "/products/12345/stock/12345/") | bad
        )
        assert response.status_code == 400
    assert raw("p#12345", "w#12345")["Quantity"] == {"S": "55"}  # type: ignore[index]


# --- permissions and ids -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("groups", "url"),
    [
        ((), "/customers/12345/edit/"),
        ((), "/products/12345/edit/"),
        ((), "/products/12345/stock/12345/"),
        ((), "/warehouses/12345/edit/"),
        ((), "/stock/import/"),
        (("catalogue",), "/customers/12345/edit/"),
        (("customer-service",), "/products/12345/edit/"),
        (("fulfilment",), "/products/12345/stock/12345/"),
    ],
)
def test_staff_outside_the_editing_groups_get_403_and_change_nothing(
    aws: None, catalogue: Client, groups: tuple[str, ...], url: str
) -> None:
    fields = form_fields(catalogue, url) if url != "/stock/import/" and "customers" not in url else {}
    outsider = member("outsider", *groups)
    assert outsider.get(url).status_code == 403
    before = [raw("c#12345"), raw("p#12345"), raw("p#12345", "w#12345"), raw("w#12345")]
    outsider.get("/")  # a CSRF cookie, as a browser would have
    token = outsider.cookies["csrftoken"].value if "csrftoken" in outsider.cookies else ""
    posted = outsider.post(url, fields | {"name": "X", "price": "1", "quantity": "1", "csrfmiddlewaretoken": token})
    assert posted.status_code == 403
    assert [raw("c#12345"), raw("p#12345"), raw("p#12345", "w#12345"), raw("w#12345")] == before


def test_superusers_edit_everything_and_edit_links_show_only_to_those_who_may(aws: None) -> None:
    boss = member("boss", superuser=True)
    assert boss.get("/customers/12345/edit/").status_code == 200
    assert boss.get("/warehouses/12345/edit/").status_code == 200
    reader = member("reader")
    assert 'id="edit-link"' not in reader.get("/products/12345/").content.decode()
    assert 'id="edit-link"' in boss.get("/products/12345/").content.decode()
    assert 'id="edit-link"' in member("cat2", "catalogue").get("/warehouses/12345/").content.decode()
    assert 'id="edit-link"' not in member("cs2", "customer-service").get("/products/12345/").content.decode()


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/products/404/edit/", 404),
        ("/products/bad%20id/edit/", 400),
        ("/customers/x%23y/edit/", 400),
        ("/products/12345/stock/404/", 404),
        ("/history/order/12345/", 404),
        ("/history/product/404/", 404),
        ("/history/customer/12345/?cursor=forged", 400),
    ],
)
def test_bad_and_unknown_ids_are_4xx(aws: None, url: str, status: int) -> None:
    assert member("boss", superuser=True).get(url).status_code == status


# --- history --------------------------------------------------------------------------------------------------


def test_history_csv_has_a_row_per_changed_attribute(aws: None, catalogue: Client) -> None:
    fields = form_fields(catalogue, "/products/12345/edit/")
    catalogue.post("/products/12345/edit/", fields | {"price": "90", "category": "music", "new_category": "on"})
    response = catalogue.get("/history/product/12345/?format=csv")
    assert response.status_code == 200 and response["X-DynamoDB-Calls"] == "2"  # GetItem, then the first Query
    rows = csv_rows(response)
    assert rows[0][:6] == ["when", "user", "action", "attribute", "before", "after"]
    assert [r[1:6] for r in rows[1:]] == [
        ["cat", "edit-product", "Price", "100", "90"],
        ["cat", "edit-product", "Category", "", "music"],
    ]
    page = catalogue.get("/history/product/12345/")
    assert page.status_code == 200 and "Price" in page.content.decode()
