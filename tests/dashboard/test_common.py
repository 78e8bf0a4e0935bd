"""What the list pages share (``dashboard.lists``): the "load more" and CSV links keep the page's other
parameters; a filter a page refuses is the page again, with each error beside its control."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from django.test import Client, RequestFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.lists import csv_url, next_url
from tests import factories

_QUERY_NAMES = st.sampled_from(["cursor", "limit", "format", "from", "to", "product_id", "é x", "a&b=c"])


def _query(url: str) -> dict[str, list[str]]:
    path, _, query = url.partition("?")
    assert path == "/patterns/x/"
    return dict(QueryDict(query).lists())


# no deadline: an example's wall-clock time depends on what else the machine's two cores run
@settings(deadline=None)
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


# --- a refused filter: 400 with the page itself, the input kept, each error beside its control -----------------

REFUSED = [
    ("/customers/1001/invoices/?from=2024-03-31&to=2024-03-01", "from", "2024-03-31", "is after"),
    ("/stats/daily/?from=2024-13-01", "from", "2024-13-01", "Enter a valid date."),
    ("/stats/categories/?from=2024-01-01&to=2025-06-01", "to", "2025-06-01", "at most 366 days"),
    ("/?from=soon", "from", "soon", "Enter a valid date."),
    ("/categories/Books/?to=2024-02-30", "to", "2024-02-30", "Enter a valid date."),
    ("/activity/?day=yesterday", "day", "yesterday", "Enter a valid date."),
    ("/activity/?user=ann&kind=product", "kind", "product", "not both"),
    ("/activity/?kind=melt", "kind", "melt", "is not a kind"),
    ("/orders/due/?date=2024-02-30", "date", "2024-02-30", "Enter a valid date."),
    ("/products/2001/?from=2024-03-02&to=2024-03-01", "from", "2024-03-02", "is after"),
]


@pytest.mark.django_db
@pytest.mark.ddb_local
@pytest.mark.parametrize(("url", "name", "value", "message"), REFUSED)
def test_a_refused_filter_is_the_page_with_the_error_beside_its_field(
    staff: Client, shop_table: str, admin_view_table: str, url: str, name: str, value: str, message: str
) -> None:
    factories.product("2001")
    # when a page gets a filter it cannot use
    response = staff.get(url)
    # then it answers 400 with the page itself (its form, not the bare error page) and nothing read for the list
    assert response.status_code == 400
    html = response.content.decode().partition('id="content-start"')[2]
    assert 'id="filter-errors"' in html and message in html
    field = re.search(rf'<(input|select) [^>]*name="{name}"[^>]*>', html)
    assert field is not None, html
    control = field.group(0)
    # the input as the user typed it (a choice: selected when it is one), marked invalid and described by its
    # error, which is beside it
    assert f'value="{value}"' in control or field.group(1) == "select"
    assert 'aria-invalid="true"' in control
    error_id = re.search(r'aria-describedby="[^"]*?(id_[\w-]+_error)', control)
    assert error_id is not None and f'<ul class="errorlist" id="{error_id.group(1)}"><li>' in html


@pytest.mark.django_db
@pytest.mark.ddb_local
def test_a_refused_filter_for_load_more_or_csv_is_the_message_alone(
    staff: Client, shop_table: str, admin_view_table: str
) -> None:
    csv = staff.get("/stats/daily/?from=2024-13-01&format=csv")
    assert csv.status_code == 400 and 'id="filter-errors"' not in csv.content.decode()
    more = staff.get("/activity/?day=yesterday&cursor=x", headers={"HX-Request": "true"})
    assert more.status_code == 400 and b"<html" not in more.content and b"Enter a valid date." in more.content


@pytest.mark.django_db
@pytest.mark.ddb_local
def test_a_valid_range_shows_the_range_in_force(staff: Client, shop_table: str, admin_view_table: str) -> None:
    html = staff.get("/stats/daily/?to=2024-03-10").content.decode()
    assert 'name="from" value="2024-02-10"' in html and 'name="to" value="2024-03-10"' in html
    assert 'id="filter-errors"' not in html
