"""What the list pages share (``dashboard.views.common``): the "load more" and CSV links keep the page's other
parameters."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import QueryDict
from django.test import RequestFactory
from hypothesis import given
from hypothesis import strategies as st

from dashboard.views.common import csv_url, next_url

_QUERY_NAMES = st.sampled_from(["cursor", "limit", "format", "from", "to", "product_id", "é x", "a&b=c"])


def _query(url: str) -> dict[str, list[str]]:
    path, _, query = url.partition("?")
    assert path == "/patterns/x/"
    return dict(QueryDict(query).lists())


@given(st.lists(st.tuples(_QUERY_NAMES, st.text(max_size=12)), max_size=8), st.text(min_size=1, max_size=20))
def test_paging_and_csv_links_keep_the_other_parameters(pairs: list[tuple[str, str]], token: str) -> None:
    request = RequestFactory().get("/patterns/x/?" + urlencode(pairs))
    given_query = dict(request.GET.lists())
    following = next_url(request, token)
    assert following is not None
    others = {k: v for k, v in given_query.items() if k not in ("cursor", "format")}
    assert _query(following) == others | {"cursor": [token]}
    rest = {k: v for k, v in given_query.items() if k not in ("cursor", "limit", "format")}
    assert _query(csv_url(request)) == rest | {"format": ["csv"]}
    assert next_url(request, None) is None
