"""One order's timeline (``dashboard.timeline``): the page and its CSV (``when,event,user,detail``), read with
the order page's own calls but its customer's, however many returns it has."""

from __future__ import annotations

from collections.abc import Sequence

from django.http import HttpResponseBase
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from dashboard import selectors as dashboard_selectors
from dashboard.forms.lists import FormatForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.lists import validated
from dashboard.responses import csv_response, domain_errors
from dashboard.timeline import Row, timeline
from returns.models import ReturnItem
from returns.refunds import Refundable
from shop import keys
from shop.order_reads import OrderCollection, order_collection

CSV_HEADER = ["when", "event", "user", "detail"]


def timeline_of(collection: OrderCollection, money: tuple[Sequence[ReturnItem], Refundable] | None) -> list[Row]:
    """The order's timeline; ``money`` None (returns table unread, as the page says): the shop's events alone."""
    found, refundable = money if money is not None else ((), None)
    return timeline(collection, found, refundable.refunds if refundable is not None else ())


@require_GET
@domain_errors
def order_timeline(request: HtmxHttpRequest, order_id: str) -> HttpResponseBase:
    form = validated(FormatForm(request.GET))
    collection = order_collection(keys.bare(order_id, keys.ORDER))
    rows = timeline_of(collection, dashboard_selectors.order_money(collection))
    if form.wants_csv:
        oid = collection.order.order_id
        data = ([r.when_text, r.event.value, r.user, r.detail] for r in rows)
        return csv_response(f"order-{oid}-timeline.csv", CSV_HEADER, data)
    context = {"order": collection.order, "timeline": rows, "history": collection.history, "on_timeline": True}
    return TemplateResponse(request, "dashboard/timeline.html", context)
