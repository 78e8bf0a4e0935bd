"""``send_notifications`` through django-ses, as it runs on AWS (``docs/production.md``), against moto's SES: each
notification one raw message from the verified sender to the customer, a shipment's with its tracking link, and a
second run sends nothing. The outbox itself is in DynamoDB Local, as everywhere else in the tests."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import datetime

import boto3
import pytest
from django.core.management import call_command
from django.test import override_settings
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.server import ThreadedMotoServer
from moto.ses.models import ses_backends

from shop import orders
from shop.orders import OrderLine
from tests import factories

pytest.importorskip("django_ses", reason="django-ses, a dependency of the project, is not installed: pip install -e .")

REGION = "eu-west-1"
SENDER = "shop@example.com"


@pytest.fixture
def ses() -> Iterator[str]:
    """moto's server in this process (its SES state readable here), the sender's identity verified: its URL."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    url = f"http://127.0.0.1:{port}"
    boto3.client("ses", region_name=REGION, endpoint_url=url).verify_email_identity(EmailAddress=SENDER)
    try:
        yield url
    finally:
        server.stop()


def test_the_ses_backend_sends_each_notification_once_from_the_verified_sender(shop_table: str, ses: str) -> None:
    factories.shop_with(customers=2, products=1)
    for oid, customer in (("81", "1001"), ("82", "1002")):
        orders.order_place(
            customer_id=customer, lines=[OrderLine("2001", 1)], placed_at=datetime(2026, 3, 2), order_id=oid
        )
        orders.order_ship(order_id=oid, carrier="UPS", tracking_number=f"1Z{oid}", notify=True)
    backend = {
        "EMAIL_BACKEND": "django_ses.SESBackend",
        "AWS_SES_REGION_NAME": REGION,
        "AWS_SES_REGION_ENDPOINT_URL": ses,
        "DEFAULT_FROM_EMAIL": SENDER,
    }
    with override_settings(**backend):
        call_command("send_notifications", "--once")
        call_command("send_notifications", "--once")
    sent = ses_backends[DEFAULT_ACCOUNT_ID][REGION].sent_messages
    assert sorted(sorted(set(m.destinations)) for m in sent) == [["c1001@example.com"], ["c1002@example.com"]]
    assert {m.source for m in sent} == {SENDER}
    raw = "".join(m.raw_data for m in sent)
    assert "https://www.ups.com/track?tracknum=1Z81" in raw and "https://www.ups.com/track?tracknum=1Z82" in raw
