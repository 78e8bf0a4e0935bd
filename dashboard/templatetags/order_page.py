"""The order page's summary (customer, date, total, delivery) and its status section (badge, version, the
answer to the last action, the ship / cancel / deliver forms for the fulfilment group).

Built in Python rather than by the template: with their filters, ``{% url %}``s and conditions they were a
quarter of the page's template time, and the order page's data layer is a single Query.

- ``{{ order|order_summary }}``: the ``<dl class="profile">`` under the title.
- ``{% order_status %}``: the ``<section id="order-status">`` (also an htmx answer on its own: the ``status``
  partial); reads ``order``, ``can_fulfil``, ``message`` and ``conflict`` from the context.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from dashboard.cells import DASH, id_url, timestamp
from dashboard.templatetags.rows import csrf_input

register = template.Library()

_SUMMARY = (
    '<dl class="profile">\n  <dt>Customer</dt><dd><a href="{}">{}</a></dd>\n  <dt>Date</dt><dd>{}</dd>\n'
    "  <dt>Total</dt><dd>{}</dd>\n  <dt>Delivery</dt><dd>{}{}</dd>\n</dl>"
)
_ESTIMATED = ' <span class="note">(estimated: not stored yet, see <code>backfill delivery-date</code>)</span>'
_HEAD = (
    '<section id="order-status" class="status{}">\n  <p>Status: <strong class="badge" data-status="{}">{}</strong>\n'
    '     <span class="note">version {}</span></p>'
)
_MESSAGE = '\n  <div class="{}" role="status">{}</div>'
_FORM = (
    '\n      <form method="post" action="{url}" hx-post="{url}" hx-target="#order-status" hx-swap="outerHTML"{confirm}>'
    '\n        {csrf}<input type="hidden" name="expected_version" value="{version}">'
    '\n        <button type="submit" class="{css}">{label}</button>\n      </form>'
)
# per status: the actions offered (route, button class, label) and the note for staff outside the group
_ACTIONS = {
    "PENDING": (
        [("dashboard:order-ship", "ship", "Ship"), ("dashboard:order-cancel", "cancel", "Cancel order")],
        "Shipping and cancelling need the fulfilment group.",
    ),
    "SHIPPED": (
        [("dashboard:order-deliver", "deliver", "Mark delivered")],
        "Marking delivered needs the fulfilment group.",
    ),
}


@register.filter
def order_summary(order: dict[str, Any]) -> SafeString:
    delivery = order["expected_delivery"]
    return format_html(
        _SUMMARY,
        id_url("dashboard:customer", order["customer_id"]),
        order["customer_id"],
        timestamp(order["date"]) or DASH,
        DASH if order["total"] is None else order["total"],
        delivery or DASH,
        mark_safe(_ESTIMATED) if delivery and not order["delivery_date_stored"] else "",
    )


@register.simple_tag(takes_context=True)
def order_status(context: template.Context) -> SafeString:
    order = context["order"]
    status, version, conflict, message = (
        order["status"],
        order["version"],
        context.get("conflict"),
        context.get("message"),
    )
    parts: list[str] = [
        format_html(
            _HEAD,
            " conflict" if conflict else "",
            status or "",
            status or "unknown",
            DASH if version is None else version,
        )
    ]
    if message:
        parts.append(format_html(_MESSAGE, "alert" if conflict else "notice", message))
    actions, note = _ACTIONS.get(status or "", ([], ""))
    if actions and context.get("can_fulfil"):
        csrf = csrf_input(context)
        forms = [
            format_html(
                _FORM,
                url=id_url(route, order["order_id"]),
                confirm=format_html(' hx-confirm="Cancel order {} and return its stock?"', order["order_id"])
                if css == "cancel"
                else "",
                csrf=csrf,
                version="" if version is None else version,
                css=css,
                label=label,
            )
            for route, css, label in actions
        ]
        parts.append(format_html('\n    <div class="actions">{}\n    </div>', mark_safe("".join(forms))))
    elif actions:
        parts.append(format_html('\n    <p class="note">{}</p>', note))
    parts.append("\n</section>")
    return mark_safe("".join(parts))
