"""Bulk actions on a status list: ship, cancel or deliver the selected orders, one transaction each.

With htmx the answer swaps each row's outcome cell in place (out of band) and the summary line; without
JavaScript the same form post gets a results page. Every selected order gets an outcome. When DynamoDB did not answer
for some order (its outcome is unknown), the answer is a 503 with ``Retry-After``, the outcomes included.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_POST

from dashboard.actors import actor_of
from dashboard.forms import BulkForm
from dashboard.htmx import HtmxHttpRequest
from dashboard.permissions import can_fulfil, needs_fulfilment
from dashboard.responses import RETRY_AFTER_S, domain_errors
from dashboard.views.common import validated
from shop import bulk


@require_POST
@domain_errors
def orders_bulk(request: HtmxHttpRequest) -> HttpResponse:
    if not can_fulfil(request.user):
        return needs_fulfilment(request)
    form = validated(BulkForm(request.POST))
    action = form.cleaned_data["action"]
    outcomes = bulk.run(
        action,
        form.cleaned_data["orders"],
        actor=actor_of(request),
        carrier=form.cleaned_data["carrier"],
        tracking_numbers=form.cleaned_data["tracking_numbers"],
    )
    done = sum(1 for o in outcomes if o.done)
    refused = sum(1 for o in outcomes if o.code == 409)
    unknown = sum(1 for o in outcomes if o.unknown)
    context = {
        "action": action,
        "status": form.cleaned_data.get("status") or "PENDING",
        "outcomes": outcomes,
        "done": done,
        "refused": refused,
        "unknown": unknown,
        "others": len(outcomes) - done - refused - unknown,
        "failed": len(outcomes) - done,
    }
    template = "dashboard/bulk.html#outcomes" if request.htmx else "dashboard/bulk.html"
    if not any(o.unknown for o in outcomes):
        return TemplateResponse(request, template, context)
    response = TemplateResponse(request, template, context, status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response
