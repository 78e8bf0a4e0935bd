"""``send_notifications`` through Django's file email backend, after actions taken on the order page with "notify
the customer" ticked: one message per notification, to the customer, a shipment's with its tracking link; a second
run sends nothing, the timeline says ``notified``, and the admin view stays verifiably clean."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import Client, override_settings

from adminview.repair import rebuild
from shop import orders
from shop.orders import OrderLine
from tests import factories
from tests.adminview_helpers import sync_now
from tests.dashboard.conftest import csrf_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def fulfilment_finance_staff(db: None) -> Client:
    user = User.objects.create_user("bea", "bea@example.com", "pw-bea-123", is_staff=True)
    user.groups.add(Group.objects.get_or_create(name="fulfilment")[0], Group.objects.get_or_create(name="finance")[0])
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def post(client: Client, url: str, data: dict[str, str]) -> int:
    return client.post(url, data, headers={"X-CSRFToken": csrf_of(client)}).status_code


def test_the_sender_mails_each_notification_once_as_a_file(
    fulfilment_finance_staff: Client, shop_table: str, admin_view_table: str, tmp_path: Path
) -> None:
    factories.shop_with(customers=1, products=1)
    orders.order_place(customer_id="1001", lines=[OrderLine("2001", 2)], placed_at=datetime(2026, 3, 2), order_id="77")
    ship = {"expected_version": "1", "carrier": "UPS", "tracking_number": "1Z999", "notify": "yes"}
    assert post(fulfilment_finance_staff, "/orders/77/ship/", ship) == 302
    refund = {"amount": "5", "reason": "late", "reference": "rf-9", "notify": "yes"}
    assert post(fulfilment_finance_staff, "/orders/77/refund/", refund) == 302
    assert (
        post(fulfilment_finance_staff, "/orders/77/refund/", refund | {"notify": "", "reference": "rf-10"}) == 302
    )  # not told
    with override_settings(
        EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend", EMAIL_FILE_PATH=str(tmp_path)
    ):
        call_command("send_notifications", "--once")
        call_command("send_notifications", "--once")
    files = sorted(tmp_path.iterdir())
    assert len(files) == 2
    mails = "".join(f.read_text() for f in files)
    assert mails.count("To: c1001@example.com") == 2
    assert "https://www.ups.com/track?tracknum=1Z999" in mails and "refunded 5.00" in mails
    html = fulfilment_finance_staff.get("/orders/77/").content.decode()
    assert html.count('data-event="notified"') == 2
    sync_now()
    assert rebuild.verify(settle_s=0).clean
