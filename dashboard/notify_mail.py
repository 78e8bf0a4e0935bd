"""A notification to the customer as an email (Django's email framework: ``EMAIL_BACKEND``), composed when it is
sent from the order as the shop table holds it then: one Query of the order and one GetItem of its customer."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string

from dashboard import carriers
from shop import access_patterns, notifications
from shop.models import Notification
from shop.order_reads import order_collection

SUBJECTS = {
    notifications.Kind.CREATED: "Your order {oid}",
    notifications.Kind.SHIPPED: "Your order {oid} is on its way",
    notifications.Kind.REFUNDED: "A refund on your order {oid}",
    notifications.Kind.EDITED: "Your order {oid} was changed",
}


class NoAddress(Exception):
    """The order's customer has no email address: nothing can be sent."""


def send(item: Notification) -> None:
    """Send ``item`` to its order's customer; raises when it could not (no address, the backend failed)."""
    collection = order_collection(item.order_id)
    customer = access_patterns.customer_by_id(customer_id=collection.order.customer_id)
    if customer is None or not customer.email:
        raise NoAddress(f"customer {collection.order.customer_id} has no email address")
    kind = notifications.Kind(item.kind)
    shipped = set((item.detail or "").split(",")) if kind is notifications.Kind.SHIPPED else set()
    shipments = [
        (s, carriers.tracking_url(s.carrier, s.tracking_number))
        for s in collection.shipments
        if s.shipment_id in shipped
    ]
    body = render_to_string(
        "dashboard/mail/notification.txt",
        {"kind": kind.value, "order": collection.order, "customer": customer, "item": item, "shipments": shipments},
    )
    subject = SUBJECTS[kind].format(oid=item.order_id)
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [customer.email])
