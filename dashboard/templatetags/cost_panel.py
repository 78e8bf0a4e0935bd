"""``{{ request.dynamodb_log|cost_panel }}``: the footer's DynamoDB panel (the inside of ``<details id=
"dynamodb-cost">``): a summary line, one row per call, and a note on what the numbers cover.

Every page renders it, so it is built here with ``format_html`` rather than by a template (a template with
a loop and number filters cost a tenth of a millisecond a page). htmx answers carry it out of band
(``oob``: the panel of the fragment's own request, named by its path; see ``dashboard.middleware``).
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from dashboard.templatetags.rows import tenths, units
from dynamo.instrumentation import Call, CallLog

register = template.Library()

_ROW = "<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"
_HEAD = (
    "<thead><tr><th>operation</th><th>table</th><th>index</th><th>items</th><th>RCU</th><th>WCU</th>"
    "<th>ms</th></tr></thead>"
)


def _row(call: Call) -> tuple[object, ...]:
    return (
        call.operation,
        f" ({call.error})" if call.error else "",
        call.table or "",
        call.index or "",
        "" if call.items is None else call.items,
        units(call.read_units),
        units(call.write_units),
        tenths(call.ms),
    )


@register.filter
def cost_panel(log: CallLog, oob_path: str = "") -> SafeString:
    """With ``oob_path`` (an htmx answer's request path) the note says whose calls these are."""
    count = log.count
    rows = (
        format_html_join("", _ROW, (_row(c) for c in log.calls))
        if count
        else SafeString('<tr><td colspan="7">no DynamoDB calls so far</td></tr>')
    )
    if oob_path:
        note = format_html(
            '<p class="note refreshed">The last htmx request\'s own calls (<span class="mono">{}</span>), as in '
            "its X-DynamoDB-Calls / X-DynamoDB-RCU / Server-Timing headers.</p>",
            oob_path,
        )
    else:
        note = SafeString(
            '<p class="note">Counted until this page was rendered; the response headers X-DynamoDB-Calls / '
            "X-DynamoDB-RCU / Server-Timing carry the final numbers.</p>"
        )
    return format_html(
        "<summary>DynamoDB: {} call{}, {} RCU, {} ms</summary><table>{}<tbody>{}</tbody></table>{}",
        count,
        "" if count == 1 else "s",
        units(log.read_units),
        tenths(log.ms),
        SafeString(_HEAD),
        rows,
        note,
    )
