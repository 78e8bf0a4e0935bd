"""Bulk actions on a status list: ship, cancel or deliver the selected orders, one transaction each.

With htmx the answer swaps each row's outcome cell in place (out of band) and the summary line; without
JavaScript the same form post gets a results page. Every selected order gets an outcome.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_POST

from dashboard.actors import actor_of
from dashboard.forms import BulkForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.permissions import can_fulfil, needs_fulfilment
from dashboard.responses import domain_errors
from dashboard.views.common import validated
from shop import bulk


@require_POST
@domain_errors
def orders_bulk(request: HtmxHttpRequest) -> HttpResponse:
    if not can_fulfil(request.user):
        return needs_fulfilment(request)
    form = validated(BulkForm(request.POST))
    action = form.cleaned_data["action"]
    outcomes = bulk.run(action, form.cleaned_data["orders"], actor=actor_of(request))
    done = sum(1 for o in outcomes if o.done)
    refused = sum(1 for o in outcomes if o.code == 409)
    context = {
        "action": action,
        "status": form.cleaned_data.get("status") or "PENDING",
        "outcomes": outcomes,
        "done": done,
        "refused": refused,
        "others": len(outcomes) - done - refused,
        "failed": len(outcomes) - done,
    }
    template = "dashboard/bulk.html#outcomes" if request.htmx else "dashboard/bulk.html"
    return TemplateResponse(request, template, context)
