"""``{{ request.dynamodb_log|cost_panel }}``: the footer's DynamoDB panel (the inside of ``<details id=
"dynamodb-cost">``): a summary line, one row per call, and a note on what the numbers cover.

Every page renders it, so it is built here in Python rather than by a template (a template with a loop and
number filters cost a tenth of a millisecond a page; ``format_html`` a quarter of that). htmx answers carry it
out of band (``oob``: the panel of the fragment's own request, named by its path; see ``dashboard.middleware``).
"""

from __future__ import annotations

from html import escape

from django import template
from django.utils.safestring import SafeString, mark_safe

from dashboard.templatetags.rows import tenths, units
from dynamo.instrumentation import Call, CallLog

register = template.Library()

_HEAD = (
    "<thead><tr><th>operation</th><th>table</th><th>index</th><th>items</th><th>RCU</th><th>WCU</th>"
    "<th>ms</th></tr></thead>"
)
_NO_CALLS = '<tr><td colspan="7">no DynamoDB calls so far</td></tr>'
_NOTE = (
    '<p class="note">Counted until this page was rendered; the response headers X-DynamoDB-Calls / '
    "X-DynamoDB-RCU / Server-Timing carry the final numbers.</p>"
)


def _row(call: Call) -> str:
    error = f" ({escape(call.error)})" if call.error else ""
    items = "" if call.items is None else int(call.items)
    return (
        f"<tr><td>{escape(call.operation)}{error}</td><td>{escape(call.table or '')}</td>"
        f"<td>{escape(call.index or '')}</td><td>{items}</td><td>{units(call.read_units)}</td>"
        f"<td>{units(call.write_units)}</td><td>{tenths(call.ms)}</td></tr>"
    )


@register.filter
def cost_panel(log: CallLog, oob_path: str = "") -> SafeString:
    """With ``oob_path`` (an htmx answer's request path) the note says whose calls these are. Every value is
    escaped (``html.escape``, as ``format_html`` would) or a number formatted here."""
    count = log.count
    rows = "".join(_row(c) for c in log.calls) if count else _NO_CALLS
    note = (
        '<p class="note refreshed">The last htmx request\'s own calls (<span class="mono">'
        f"{escape(oob_path)}</span>), as in its X-DynamoDB-Calls / X-DynamoDB-RCU / Server-Timing headers.</p>"
        if oob_path
        else _NOTE
    )
    summary = f"DynamoDB: {count} call{'' if count == 1 else 's'}, {units(log.read_units)} RCU, {tenths(log.ms)} ms"
    return mark_safe(f"<summary>{summary}</summary><table>{_HEAD}<tbody>{rows}</tbody></table>{note}")
