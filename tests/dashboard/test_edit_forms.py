"""The edit forms' input rules (``dashboard.forms.editing``) through the pages, on DynamoDB Local: text trimmed,
required fields marked and enforced, countries from ISO 3166 as the shop stores them, categories matched ignoring
case and created only on purpose, saves and history named by the fields' labels, never by attribute paths."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from dashboard import category_names
from dashboard.countries import country_choices
from dashboard.forms.editing import attribute_label
from dynamo.client import client_of
from shop.models import ShopItem
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.edit_helpers import form_fields, member, raw
from tests.dashboard.numbers_shop import catalogue as numbers_catalogue
from tests.dashboard.numbers_shop import place

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]


@pytest.fixture
def service(shop_table: str, admin_view_table: str) -> Client:
    factories.customer("1001")
    return member("cs", "customer-service")


@pytest.fixture
def catalogue(shop_table: str, admin_view_table: str) -> Client:
    factories.product("2001", category="Beauty")
    factories.warehouse("301")
    return member("cat", "catalogue")


def _address(pk: str) -> dict[str, str]:
    item = raw(pk)
    assert item is not None
    return {name: value["S"] for name, value in item["Address"]["M"].items()}


def test_typed_text_is_trimmed_and_the_country_is_chosen_from_iso_3166(service: Client) -> None:
    fields = form_fields(service, "/customers/1001/edit/")
    posted = fields | {"name": "  Ada King ", "city": " Oslo ", "country": "Norway"}
    response = service.post("/customers/1001/edit/", posted)
    assert response.status_code == 302
    item = raw("c#1001")
    assert item and item["Name"] == {"S": "Ada King"}
    assert _address("c#1001")["City"] == "Oslo" and _address("c#1001")["Country"] == "Norway"  # its English name
    page = service.get("/customers/1001/").content.decode()
    assert "Saved: Name, City, Country" in page and "Address." not in page
    history = service.get("/history/customer/1001/").content.decode()
    assert "Country: Sweden → Norway" in history and "Address.Country" not in history


def test_a_country_that_is_no_iso_name_is_shown_and_kept_until_changed(service: Client) -> None:
    # given old data: a country with a trailing space
    client_of(ShopItem).update_item(
        TableName=str(ShopItem.Meta.table_name),
        Key={"PK": {"S": "c#1001"}, "SK": {"S": "c#1001"}},
        UpdateExpression="SET Address.Country = :c",
        ExpressionAttributeValues={":c": {"S": "Sweden "}},
    )
    html = service.get("/customers/1001/edit/").content.decode()
    assert '<option value="Sweden " selected>Sweden  (as stored)</option>' in html
    # when the form is saved with another field changed, the country stays exactly as stored
    fields = form_fields(service, "/customers/1001/edit/")
    assert service.post("/customers/1001/edit/", fields | {"name": "Ada"}).status_code == 302
    assert _address("c#1001")["Country"] == "Sweden "
    # and choosing the country from the list writes its name
    fields = form_fields(service, "/customers/1001/edit/")
    assert service.post("/customers/1001/edit/", fields | {"country": "Sweden"}).status_code == 302
    assert _address("c#1001")["Country"] == "Sweden"
    assert service.post("/customers/1001/edit/", fields | {"country": "Atlantis"}).status_code in (400, 409)


@pytest.mark.parametrize("emptied", ["city", "zip_code", "street", "country"])
def test_an_address_does_not_save_without_what_a_parcel_needs(service: Client, emptied: str) -> None:
    before = raw("c#1001")
    fields = form_fields(service, "/customers/1001/edit/")
    response = service.post("/customers/1001/edit/", fields | {emptied: "  " if emptied != "country" else ""})
    assert response.status_code == 400 and raw("c#1001") == before
    html = response.content.decode()
    control = re.search(rf'<(input|select)[^>]*name="{emptied}"[^>]*>', html)
    assert control is not None and 'aria-invalid="true"' in control.group(0) and "required" in control.group(0)
    assert f'<ul class="errorlist" id="id_{emptied}_error"><li>This field is required.</li></ul>' in html


def test_required_fields_are_marked(service: Client, catalogue: Client) -> None:
    customer = service.get("/customers/1001/edit/").content.decode()
    for name in ("name", "email", "street", "zip_code", "city", "country"):
        assert f'<label for="id_{name}" class="required">' in customer, name
    for name in ("number", "county"):
        assert f'<label for="id_{name}">' in customer, name
    stock = catalogue.get("/products/2001/stock/301/").content.decode()
    assert '<label for="id_reason" class="required">' in stock
    assert re.search(r'<textarea name="reason"[^>]*required|<input type="text" name="reason"[^>]*required', stock)
    # shown again with an error, a required field is still marked
    fields = form_fields(service, "/customers/1001/edit/")
    again = service.post("/customers/1001/edit/", fields | {"email": "not an email"}).content.decode()
    assert '<label for="id_city" class="required">' in again


def test_a_category_is_the_catalogues_whatever_its_case(catalogue: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dashboard.views.editing.known_categories", lambda: ["Beauty", "Books"])
    factories.product("2002")
    form = catalogue.get("/products/2002/edit/").content.decode()
    assert '<datalist id="category-choices"><option value="Beauty"></option><option value="Books"></option>' in form
    fields = form_fields(catalogue, "/products/2002/edit/")
    # "beauty" means "Beauty", even with "new category" ticked
    response = catalogue.post("/products/2002/edit/", fields | {"category": " beauty", "new_category": "on"})
    assert response.status_code == 302
    assert raw("p#2002")["Category"] == {"S": "Beauty"}  # type: ignore[index]


def test_a_new_category_only_on_purpose(catalogue: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dashboard.views.editing.known_categories", lambda: ["Beauty", "Books"])
    before = raw("p#2001")
    fields = form_fields(catalogue, "/products/2001/edit/")
    typo = catalogue.post("/products/2001/edit/", fields | {"category": "Beuty"})
    assert typo.status_code == 400 and raw("p#2001") == before
    assert "is not one of the catalogue&#x27;s categories" in typo.content.decode()
    made = catalogue.post("/products/2001/edit/", fields | {"category": "Garden ", "new_category": "on"})
    assert made.status_code == 302 and raw("p#2001")["Category"] == {"S": "Garden"}  # type: ignore[index]


def test_an_empty_quantity_where_there_is_no_stock_row_is_400_with_the_form(catalogue: Client) -> None:
    # given a product and a warehouse with no stock row between them
    assert raw("p#2001", "w#301") is None
    fields = form_fields(catalogue, "/products/2001/stock/301/")
    for blank, message in (("", "This field is required."), ("  ", "Enter a whole number.")):
        response = catalogue.post("/products/2001/stock/301/", fields | {"quantity": blank})
        assert response.status_code == 400
        html = response.content.decode()
        assert 'id="edit-form"' in html and f'<ul class="errorlist" id="id_quantity_error"><li>{message}' in html
    assert raw("p#2001", "w#301") is None


def test_known_categories_are_the_ones_products_hold_and_an_order_tells_a_category_exists(
    shop_table: str, admin_view_table: str
) -> None:
    # given products in Books, Kitchen and one more category (and one in none), orders only in some of them
    numbers_catalogue()
    place(6, tag="k")
    factories.product("2099", category="Garden")  # nothing sold
    sync_now()
    # then every category a product holds is known, spelled as the caller spells it when it does
    known = category_names.known_categories(also=["books"])
    assert "Books" not in known and "books" in known and "Garden" in known and "Kitchen" in known
    assert "uncategorized" not in known and known == sorted(known, key=str.casefold)
    assert category_names.matching(" KITCHEN ", known) == "Kitchen"
    assert category_names.category_has_orders("Kitchen") and not category_names.category_has_orders("Garden")


def test_pages_name_attributes_by_their_labels_and_countries_by_their_names() -> None:
    assert [attribute_label(p) for p in ("Address.Country", "Address.ZipCode", "Detail.Name", "Price")] == [
        "Country",
        "Zip code",
        "Name",
        "Price",
    ]
    choices = country_choices("SE")
    assert choices[:2] == [("", "—"), ("SE", "SE (as stored)")] and ("Sweden", "Sweden") in choices
    assert ("Sweden", "Sweden") in country_choices("Sweden") and len(country_choices("Sweden")) == len(choices) - 1
