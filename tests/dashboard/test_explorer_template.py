"""The explorer page's template (``dashboard/pattern.html``) on its own: the pattern's parameters rendered as
the form declares them, and the "Requests sent" section."""

from __future__ import annotations

import re

from django.http import QueryDict
from django.template.loader import render_to_string

from dashboard.forms.filters import PatternForm
from dashboard.patterns import all_patterns, find
from dashboard.views.patterns import shown_calls
from dynamo.instrumentation import Call, CallLog
from dynamo.paging import MAX_PAGE


def inputs(html: str) -> dict[str, str]:
    """Each ``<input>`` of the pattern's form, by name."""
    form = html.split('id="pattern-form">')[1].split("</form>")[0]
    tags = re.findall(r"<input[^>]*>", form)
    return {re.sub(r'.* name="([^"]+)".*', r"\1", tag): tag for tag in tags}


def test_every_parameter_is_an_input_as_its_form_field_declares_it() -> None:
    for pattern in all_patterns():
        if not pattern.params:
            continue
        form = PatternForm(
            pattern.params, QueryDict("limit=7&" + "&".join(f"{p.query_name}=a%22%3Cb" for p in pattern.params))
        )
        html = render_to_string("dashboard/pattern.html", {"pattern": pattern, "form": form, "submitted": True})
        shown = inputs(html)
        assert list(shown) == [p.query_name for p in pattern.params] + ["limit"], pattern.name
        for param in pattern.params:
            tag = shown[param.query_name]
            assert 'value="a&quot;&lt;b"' in tag and " required" in tag
            assert f'maxlength="{8192 if param.kind == "ids" else 300}"' in tag
            assert (f'placeholder="{param.help}"' in tag) is bool(param.help)
            assert f"<label>{param.label} <input" in html
        limit = shown["limit"]
        assert all(
            a in limit for a in ('type="number"', 'min="1"', f'max="{MAX_PAGE}"', 'value="7"', 'placeholder="50"')
        )


def test_requests_sent_shows_each_call_three_ways_escaped() -> None:
    request = {"TableName": "a<b", "Key": {"PK": {"S": "o#1 '''"}}}
    calls = [
        Call("dynamodb", "GetItem", "a<b", None, 1, 0.5, 0.0, 3.24, request=request),
        Call("dynamodb", "Query", None, "i&j", None, 3.0, 0.0, 1.0, request={}),
    ]
    log = CallLog(calls=calls)
    html = render_to_string(
        "dashboard/pattern.html#requests",
        {"log": log, "items_count": 1, "calls": shown_calls(log), "first_page": True},
    )
    assert '<p class="note">2 calls, 3.50 RCU, 1 item shown, 4.2 ms.' in html
    assert "<h3>GetItem on a&lt;b: 1 item, 0.50 RCU, 3.2 ms</h3>" in html
    assert "<h3>Query on ? / i&amp;j: ? item, 3 RCU, 1.0 ms</h3>" in html
    assert '<pre class="request-json">{\n  &quot;operation&quot;: &quot;GetItem&quot;,' in html
    assert "client.get_item(**kwargs)" in html and "aws dynamodb get-item --table-name &#x27;a&lt;b&#x27;" in html
    assert "hx-swap-oob" not in html and "for the last page loaded" not in html
    more = render_to_string(
        "dashboard/pattern.html#requests", {"log": CallLog(), "items_count": 0, "calls": [], "first_page": False}
    )
    assert '<div id="requests" hx-swap-oob="true">' in more and "0 calls, 0 RCU, 0 items shown" in more


def test_a_pattern_without_parameters_has_no_form() -> None:
    pattern = find("getPendingOrders")
    assert pattern is not None and not pattern.params
    html = render_to_string("dashboard/pattern.html", {"pattern": pattern, "form": PatternForm((), None)})
    assert 'id="pattern-form"' not in html
