"""The carriers list (``dashboard.carriers``): the ship form's choice of carrier, and tracking numbers that link to
their carrier's tracking page on the order page and the customer's orders; a tracking number per warehouse of a
split order."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest
from django.test import Client

from dashboard import carriers
from dashboard.cells import tracking_link, tracking_links
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.test_order import post

pytestmark = pytest.mark.django_db


def test_a_listed_carrier_links_its_tracking_page_with_the_number_quoted() -> None:
    assert carriers.tracking_url("ups", "1Z 99/&") == "https://www.ups.com/track?tracknum=1Z%2099%2F%26"
    assert carriers.tracking_url("Royal Mail", "AB1") == (
        "https://www.royalmail.com/track-your-item#/tracking-results/AB1"
    )
    assert carriers.tracking_url("Bring", "X1") is None and carriers.tracking_url("DHL", None) is None
    assert tracking_link("FedEx", "7<1>") == (
        '<a href="https://www.fedex.com/fedextrack/?trknbr=7%3C1%3E" rel="noopener noreferrer">7&lt;1&gt;</a>'
    )
    assert tracking_link("Bring", "X1") == "X1" and tracking_link(None, None) == "—"
    assert tracking_links([("Bring", "X1"), (None, "<2>")]) == "<div>X1</div><div>&lt;2&gt;</div>"
    assert tracking_links([]) == "—"
    for name in ("DHL", "UPS", "FedEx", "USPS", "Royal Mail", "PostNL", "La Poste"):
        assert carriers.tracking_url(name, "N1"), name


@pytest.fixture
def split_order(shop_table: str, admin_view_table: str) -> str:
    """A pending order of product 2001 from warehouse 301 and 2002 from warehouse 302."""
    factories.shop_with(customers=1, products=1)
    factories.product("2002")
    factories.warehouse("302")
    factories.stock("2002", "302", 5)
    oid = "s-" + uuid.uuid4().hex[:8]
    orders.order_place(
        customer_id="1001",
        lines=[OrderLine("2001", 1), OrderLine("2002", 1)],
        placed_at=datetime(2024, 5, 1, 12),
        order_id=oid,
    )
    return oid


def _shipments(html: str) -> str:
    return html.split('id="order-shipments"')[1].split("</section>")[0]


def test_the_ship_form_offers_the_listed_carriers_other_and_a_tracking_number_per_warehouse(
    packer: Client, split_order: str
) -> None:
    form = packer.get(f"/orders/{split_order}/").content.decode().split('class="ship-form"')[1].split("</form>")[0]
    assert '<select name="carrier" id="id_carrier">' in form
    assert '<option value="Royal Mail">Royal Mail</option>' in form and '<option value="other">Other</option>' in form
    assert 'name="carrier_other"' in form
    assert '<label for="id_tracking_number-301">Tracking number from warehouse 301:</label>' in form
    assert 'name="tracking_number-302"' in form and 'name="tracking_number"' not in form


def test_shipping_a_split_order_gives_each_parcel_its_number_linking_to_the_carriers_page(
    packer: Client, split_order: str
) -> None:
    # when a split order ships with UPS and a number per warehouse
    data = {
        "expected_version": "1",
        "carrier": "UPS",
        "tracking_number-301": "1ZA",
        "tracking_number-302": "1ZB",
    }
    response = post(packer, f"/orders/{split_order}/ship/", data)
    assert response.status_code == 200
    # then each shipment has its own, and the order page links each to UPS's tracking page
    shipped = {(s.warehouse_id, s.carrier, s.tracking_number) for s in orders.order_collection(split_order).shipments}
    assert shipped == {("301", "UPS", "1ZA"), ("302", "UPS", "1ZB")}
    html = _shipments(packer.get(f"/orders/{split_order}/").content.decode())
    for number in ("1ZA", "1ZB"):
        link = f'<a href="https://www.ups.com/track?tracknum={number}" rel="noopener noreferrer">{number}</a>'
        assert link in html
    # and the customer's orders list shows and links every one of them
    sync_now()
    customer = packer.get("/customers/1001/").content.decode()
    row = customer.split(f'data-order-id="{split_order}"')[1].split("</tr>")[0]
    for number in ("1ZA", "1ZB"):
        assert (
            f'<div><a href="https://www.ups.com/track?tracknum={number}" rel="noopener noreferrer">{number}</a></div>'
            in row
        )


def test_another_carrier_is_named_in_its_own_field_and_shown_without_a_link(packer: Client, split_order: str) -> None:
    # an "other" carrier without its name: 400 with the error beside the field, nothing written
    refused = post(packer, f"/orders/{split_order}/ship/", {"expected_version": "1", "carrier": "other"})
    assert refused.status_code == 400 and 'id="id_carrier_other_error"' in refused.content.decode()
    assert orders.order_collection(split_order).shipments == []
    # named, it is kept as typed; a listed name typed as free text takes the list's spelling
    data = {"expected_version": "1", "carrier": "other", "carrier_other": " Bring ", "tracking_number": "B1"}
    assert post(packer, f"/orders/{split_order}/ship/", data).status_code == 200
    assert {(s.carrier, s.tracking_number) for s in orders.order_collection(split_order).shipments} == {("Bring", "B1")}
    assert "<td>Bring</td><td>B1</td>" in _shipments(packer.get(f"/orders/{split_order}/").content.decode())


def test_a_listed_carrier_typed_as_text_takes_the_lists_spelling(packer: Client, split_order: str) -> None:
    data = {"expected_version": "1", "carrier": " postnl ", "tracking_number": "3S1"}
    assert post(packer, f"/orders/{split_order}/ship/", data).status_code == 200
    assert {s.carrier for s in orders.order_collection(split_order).shipments} == {"PostNL"}


def test_a_tracking_number_for_a_warehouse_the_order_does_not_ship_from_is_400(
    packer: Client, split_order: str
) -> None:
    response = post(packer, f"/orders/{split_order}/ship/", {"expected_version": "1", "tracking_number-999": "X"})
    assert response.status_code == 400
    assert orders.order_collection(split_order).order.status == "PENDING"


def test_the_pending_list_takes_a_tracking_number_per_warehouse_of_a_split_order_and_the_bulk_ship_keeps_each(
    packer: Client, split_order: str
) -> None:
    # given the split order beside an order shipped from one warehouse, both on the pending list
    single = orders.order_place(
        customer_id="1001", lines=[OrderLine("2001", 1)], placed_at=datetime(2024, 5, 2, 12), order_id=split_order + "x"
    ).order_id
    sync_now()
    html = packer.get("/orders/pending/").content.decode()
    # then the split order's row has a field per warehouse and the other its one field
    split_cell = html.split(f'id="tracking-{split_order}">')[1].split("</td>")[0]
    assert f'name="tracking_number-{split_order}@301"' in split_cell
    assert f'aria-label="tracking number of order {split_order} from warehouse 302"' in split_cell
    assert f'name="tracking_number-{split_order}"' not in split_cell
    single_cell = html.split(f'id="tracking-{single}">')[1].split("</td>")[0]
    assert f'name="tracking_number-{single}"' in single_cell and "@" not in single_cell
    # when both ship in bulk with a number typed for each parcel
    form = html.split('id="bulk-form"')[1]
    token = form.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    data = {
        "csrfmiddlewaretoken": token,
        "status": "PENDING",
        "action": "ship",
        "carrier": "DHL",
        "order": [split_order, single],
        f"tracking_number-{split_order}@301": "D-301",
        f"tracking_number-{split_order}@302": "D-302",
        f"tracking_number-{single}": "D-1",
    }
    assert packer.post("/orders/bulk/", data).status_code in (200, 302)
    # then each shipment keeps its own
    shipped = {(s.warehouse_id, s.tracking_number) for s in orders.order_collection(split_order).shipments}
    assert shipped == {("301", "D-301"), ("302", "D-302")}
    assert [s.tracking_number for s in orders.order_collection(single).shipments] == ["D-1"]
