"""The catalogue export, the activity list by kind, and the bulk stock import's pages on DynamoDB Local: a dry
run that writes nothing, an apply through the signed plan (all at once, or chunk by chunk for htmx), 4xx for a
bad file or an altered plan."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from shop import catalog
from shop.models import ShopItem
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csv_rows
from tests.dashboard.edit_helpers import form_fields, member, raw

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]


@pytest.fixture
def three_products_one_warehouse(shop_table: str, admin_view_table: str) -> None:
    items: list[ShopItem] = [catalog.new_warehouse(warehouse_id="w1", name="North")]
    for n in range(3):
        items.append(catalog.new_product(product_id=f"p{n}", name=f"=Product {n}", price="2.50", description="d"))
        items.append(catalog.new_inventory(product_id=f"p{n}", warehouse_id="w1", quantity=10))
    catalog.load(items)


@pytest.fixture
def catalogue() -> Client:
    return member("cat", "catalogue")


def upload(client: Client, text: str) -> str:
    """POST the file to the dry run; the page's HTML."""
    csrf = form_fields(client, "/stock/import/", form_id="upload-form")["csrfmiddlewaretoken"]
    data = {"csrfmiddlewaretoken": csrf, "file": SimpleUploadedFile("stock.csv", text.encode(), "text/csv")}
    response = client.post("/stock/import/", data)
    assert response.status_code == 200, response.content.decode()[:500]
    return str(response.content.decode())


def test_the_catalogue_lists_every_product_from_the_view(three_products_one_warehouse: None, catalogue: Client) -> None:
    sync_now()
    page = catalogue.get("/catalogue/?limit=2")
    assert page.status_code == 200 and re.findall(r'data-product-id="([^"]+)"', page.content.decode()) == ["p0", "p1"]
    rows = csv_rows(catalogue.get("/catalogue/?format=csv"))
    assert rows[0] == ["product_id", "name", "price", "category", "description"]
    assert rows[1:] == [[f"p{n}", f"'=Product {n}", "2.50", "", "d"] for n in range(3)]


def test_a_warehouses_stock_exports_in_the_imports_columns(
    three_products_one_warehouse: None, catalogue: Client
) -> None:
    rows = csv_rows(catalogue.get("/warehouses/w1/stock.csv"))
    assert rows == [["product_id", "warehouse_id", "quantity"]] + [[f"p{n}", "w1", "10"] for n in range(3)]
    assert catalogue.get("/warehouses/nope/stock.csv").status_code == 404


def test_dry_run_then_apply_without_javascript(three_products_one_warehouse: None, catalogue: Client) -> None:
    html = upload(catalogue, "product_id,warehouse_id,quantity\np0,w1,12\np1,w1,10\np9,w1,1\np2,w1,x\n")
    assert "<strong>1</strong> to change, 1 unchanged, <strong>2</strong> with errors" in html
    assert "unknown product p9" in html and raw("p#p0", "w#w1")["Quantity"] == {"S": "10"}  # type: ignore[index]
    apply = form_fields(catalogue, "/stock/import/", form_id="upload-form")  # a fresh CSRF token
    plan = re.search(r'name="plan" value="([^"]+)"', html)
    assert plan is not None
    done = catalogue.post(
        "/stock/import/apply/", {"csrfmiddlewaretoken": apply["csrfmiddlewaretoken"], "plan": plan.group(1)}
    )
    assert done.status_code == 200 and "1 rows: 1 done, 0 changed meanwhile" in done.content.decode()
    assert raw("p#p0", "w#w1")["Quantity"] == {"S": "12"}  # type: ignore[index]
    again = catalogue.post(
        "/stock/import/apply/", {"csrfmiddlewaretoken": apply["csrfmiddlewaretoken"], "plan": plan.group(1)}
    )
    assert "0 done, 1 changed meanwhile" in again.content.decode()  # the dry run's before-value no longer holds
    sync_now()
    kinds = csv_rows(catalogue.get("/activity/?kind=stock&format=csv"))
    assert [(r[0], r[2], r[3], r[-2], r[-1]) for r in kinds[1:]] == [("", "stock-import", "cat", "stock", "p0")]
    assert catalogue.get("/activity/?kind=stock&user=cat").status_code == 400


def test_apply_in_chunks_for_htmx(
    three_products_one_warehouse: None, catalogue: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dashboard.views import stock_import

    monkeypatch.setattr(stock_import, "CHUNK", 2)
    html = upload(catalogue, "product_id,warehouse_id,quantity\np0,w1,1\np1,w1,2\np2,w1,3\n")
    token = re.search(r'name="plan" value="([^"]+)"', html).group(1)  # type: ignore[union-attr]
    csrf = form_fields(catalogue, "/stock/import/", form_id="upload-form")["csrfmiddlewaretoken"]
    headers = {"HX-Request": "true"}
    first = catalogue.post(
        "/stock/import/apply/", {"csrfmiddlewaretoken": csrf, "plan": token, "offset": "0"}, headers=headers
    )
    text = first.content.decode()
    assert "Applying: 2 of 3 rows: 2 done" in text and 'hx-trigger="load"' in text and "<html" not in text
    nxt = {"csrfmiddlewaretoken": csrf, "plan": token, "offset": "2", "done": "2", "refused": "0", "failed": "0"}
    last = catalogue.post("/stock/import/apply/", nxt, headers=headers).content.decode()
    assert "Done: all 3 rows: 3 done" in last and 'hx-swap-oob="true"' in last and 'hx-trigger="load"' not in last
    assert [raw(f"p#p{n}", "w#w1")["Quantity"]["S"] for n in range(3)] == ["1", "2", "3"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("product_id,quantity\np0,1\n", "lacks the column"),
        ("", "The submitted file is empty"),
    ],
)
def test_a_bad_file_is_400_and_writes_nothing(
    three_products_one_warehouse: None, catalogue: Client, text: str, message: str
) -> None:
    csrf = form_fields(catalogue, "/stock/import/", form_id="upload-form")["csrfmiddlewaretoken"]
    response = catalogue.post(
        "/stock/import/", {"csrfmiddlewaretoken": csrf, "file": SimpleUploadedFile("s.csv", text.encode())}
    )
    assert response.status_code == 400 and message in response.content.decode()


def test_an_altered_or_foreign_plan_is_400(three_products_one_warehouse: None, catalogue: Client) -> None:
    html = upload(catalogue, "product_id,warehouse_id,quantity\np0,w1,12\n")
    token = re.search(r'name="plan" value="([^"]+)"', html).group(1)  # type: ignore[union-attr]
    csrf = form_fields(catalogue, "/stock/import/", form_id="upload-form")["csrfmiddlewaretoken"]
    assert (
        catalogue.post("/stock/import/apply/", {"csrfmiddlewaretoken": csrf, "plan": token[:-3] + "abc"}).status_code
        == 400
    )
    other = member("cat2", "catalogue")
    csrf2 = form_fields(other, "/stock/import/", form_id="upload-form")["csrfmiddlewaretoken"]
    assert other.post("/stock/import/apply/", {"csrfmiddlewaretoken": csrf2, "plan": token}).status_code == 400
    assert raw("p#p0", "w#w1")["Quantity"] == {"S": "10"}  # type: ignore[index]


def test_blank_lines_are_reported_as_skipped(three_products_one_warehouse: None, catalogue: Client) -> None:
    html = upload(catalogue, "product_id,warehouse_id,quantity\np0,w1,12\n,,\n\np1,w1,3\n")
    assert "<strong>2</strong> to change" in html
    assert "2 blank lines skipped (lines 3, 4)" in html


def test_after_an_htmx_apply_the_page_says_what_was_written_and_offers_no_second_apply(
    three_products_one_warehouse: None, catalogue: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dashboard.views import stock_import

    monkeypatch.setattr(stock_import, "CHUNK", 1)
    html = upload(catalogue, "product_id,warehouse_id,quantity\np0,w1,1\np1,w1,2\n")
    token = re.search(r'name="plan" value="([^"]+)"', html).group(1)  # type: ignore[union-attr]
    csrf = form_fields(catalogue, "/stock/import/", form_id="upload-form")["csrfmiddlewaretoken"]
    headers = {"HX-Request": "true"}
    apply = {"csrfmiddlewaretoken": csrf, "plan": token}
    # the first chunk takes the Apply button away while the rest is applied
    first = catalogue.post("/stock/import/apply/", apply | {"offset": "0"}, headers=headers).content.decode()
    assert '<p id="apply-form" class="note" hx-swap-oob="true">Applying' in first
    # the last one replaces the dry run's summary, its button and its old quantities
    nxt = {"offset": "1", "done": "1", "refused": "0", "already": "0", "failed": "0"}
    last = catalogue.post("/stock/import/apply/", apply | nxt, headers=headers).content.decode()
    assert '<p id="dry-run-summary" hx-swap-oob="true"><strong>Applied:</strong> 2 rows written' in last
    assert "This dry run has been applied." in last and '<button type="submit">Apply' not in last
    assert '<div id="dry-run-changes-region" hx-swap-oob="true"></div>' in last
    assert re.search(r'<td class="num">2</td><td>done</td><td class="num">2</td>', last)  # the quantity now
    # the same apply again writes nothing and says why
    again = catalogue.post("/stock/import/apply/", apply | {"offset": "0"}, headers=headers)
    assert again.status_code == 200 and "this dry run was applied before" in again.content.decode()
    assert "already so: applied before" in again.content.decode()
    assert [raw(f"p#p{n}", "w#w1")["Quantity"]["S"] for n in range(2)] == ["1", "2"]  # type: ignore[index]
