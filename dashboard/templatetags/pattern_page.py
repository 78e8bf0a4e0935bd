"""The explorer page's parameter inputs and its "Requests sent" section, built in Python rather than by template
loops: with their filters (``pluralize``, ``default``, ``units``...) they were most of the page's template time
outside its table of items, and the explorer's data layer is often a single Query.

- ``{% pattern_inputs form %}``: a ``<label>`` with its ``<input>`` for each of the pattern's parameters (value,
  ``required``, the help as placeholder), then the page-size input.
- ``{% requests_sent log items_count calls %}``: the note (calls, RCU, items shown, ms) and, for each recorded
  call (``dashboard.views.patterns._calls``), its section with the request as JSON, as boto3 code and as an AWS
  CLI line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from dashboard.forms import PatternForm
from dashboard.templatetags.rows import tenths, units

register = template.Library()

_NOTE = (
    '<p class="note">{count} call{count_s}, {rcu} RCU, {items} item{items_s} shown, {ms} ms. A paged Query asks for '
    "one item more than the page shows: the extra item tells whether there is a next page; the next page starts "
    "after the last item shown (ExclusiveStartKey). The endpoint and region come from the usual AWS variables "
    "(AWS_ENDPOINT_URL_DYNAMODB for DynamoDB Local).</p>\n"
)
_SECTION = (
    '\n<section class="request" data-operation="{operation}">\n'
    "  <h3>{operation} on {table}{index}: {items} item{items_s}, {rcu} RCU, {ms} ms</h3>\n"
    '  <details open><summary>Request (JSON)</summary><pre class="request-json">{json}</pre></details>\n'
    '  <details><summary>boto3</summary><pre class="boto3">{boto3}</pre></details>\n'
    '  <details><summary>AWS CLI</summary><pre class="cli">{cli}</pre></details>\n'
    "</section>\n"
)


def _plural(count: Any) -> str:
    """Django's ``pluralize`` for a count: "" for 1, "s" for any other number, "" for no number."""
    try:
        return "" if float(count) == 1 else "s"
    except (TypeError, ValueError):
        return ""


def _text(value: Any) -> str:
    return escape(value if type(value) is str else str(value))


@register.simple_tag
def pattern_inputs(form: PatternForm) -> SafeString:
    shown = []
    for field in form.param_inputs():
        value = field["value"]
        placeholder = f' placeholder="{_text(field["help"])}"' if field["help"] else ""
        shown.append(
            f'\n  <label>{_text(field["label"])} <input name="{_text(field["name"])}" '
            f'value="{"" if value is None else _text(value)}" required{placeholder}></label>\n  '
        )
    limit = form["limit"].value()
    shown.append(
        '\n  <label>page size <input name="limit" type="number" min="1" max="500" '
        f'value="{"" if limit is None else _text(limit)}" placeholder="50"></label>'
    )
    return mark_safe("".join(shown))


@register.simple_tag
def requests_sent(log: Mapping[str, Any], items_count: int, calls: Iterable[Mapping[str, Any]]) -> SafeString:
    count = log["count"]
    shown = [
        _NOTE.format(
            count=_text(count),
            count_s=_plural(count),
            rcu=units(log["read_units"]),
            items=_text(items_count),
            items_s=_plural(items_count),
            ms=tenths(log["ms"]),
        )
    ]
    for call in calls:
        items = call["items"]
        shown.append(
            _SECTION.format(
                operation=_text(call["operation"]),
                table=_text(call["table"] or "?"),
                index=f" / {_text(call['index'])}" if call["index"] else "",
                items="?" if items is None else _text(items),
                items_s=_plural(items),
                rcu=units(call["read_units"]),
                ms=tenths(call["ms"]),
                json=_text(call["json"]),
                boto3=_text(call["boto3"]),
                cli=_text(call["cli"]),
            )
        )
    return mark_safe("".join(shown))
