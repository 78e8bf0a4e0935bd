"""Packing slips, one printed page per order (see docs/staff-work.md, "Working the warehouse queue"). Their calls
do not grow with the tables: one Query per order (side by side) and one BatchGetItem each of customers and names."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from dashboard.carriers import tracking_url
from dashboard.forms.slips import SlipsForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import validated
from dashboard.profiles import Profile
from dashboard.responses import domain_errors
from shop import keys, order_status
from shop.keys import OrderStatus
from shop.models import Address
from shop.order_reads import OrderCollection, customers_of, order_collections, product_names


@dataclass(frozen=True)
class SlipLine:
    product_id: str
    name: str | None
    quantity: int  # to pack: what is left to ship of a pending order
    ordered: int


@dataclass(frozen=True)
class Tracking:
    carrier: str | None
    number: str
    url: str | None  # the carrier's tracking page (a listed carrier), else None


@dataclass(frozen=True)
class Slip:
    order_id: str
    customer_name: str | None
    ship_to: Address | None
    shipped: bool
    lines: list[SlipLine]
    tracking: list[Tracking]


def _slips(order_ids: list[str]) -> list[Slip]:
    collections = order_collections(order_ids)
    customers = customers_of(c.order.customer_id for c in collections)
    names = product_names(i.product_id for c in collections for i in c.items if not i.product_name)
    return [_slip(c, Profile.of_customer(customers.get(c.order.customer_id)), names) for c in collections]


def _slip(collection: OrderCollection, profile: Profile, names: dict[str, str]) -> Slip:
    pending = collection.order.order_status is OrderStatus.PENDING
    shipped_to = None if pending else next((s.address for s in collection.shipments if s.address), None)
    sent = order_status.shipped(collection) if pending else {}
    lines = [
        SlipLine(i.product_id, i.product_name or names.get(i.product_id), left, i.quantity)
        for i in sorted(collection.items, key=lambda i: i.product_id)
        if (left := i.quantity - sent.get(i.product_id, 0)) > 0 or not pending
    ]
    tracking = [
        Tracking(s.carrier, s.tracking_number, tracking_url(s.carrier, s.tracking_number))
        for s in collection.shipments
        if s.tracking_number
    ]
    return Slip(
        order_id=collection.order.order_id,
        customer_name=profile.name,
        ship_to=shipped_to or collection.order.ship_to or profile.address,
        shipped=shipped_to is not None,
        lines=lines,
        tracking=tracking,
    )


@require_GET
@domain_errors
def order_slip(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    slips = _slips([keys.bare(order_id, keys.ORDER)])
    return TemplateResponse(request, "dashboard/slips.html", {"slips": slips, "single": True})


@require_GET
@domain_errors
def order_slips(request: HtmxHttpRequest) -> HttpResponseBase:
    """A selection's packing slips (at most ``MAX_SLIPS``), in the order given; 404 if one order is missing."""
    form = validated(SlipsForm(request.GET))
    slips = _slips(form.cleaned_data["ids"])
    return TemplateResponse(request, "dashboard/slips.html", {"slips": slips, "single": False})
