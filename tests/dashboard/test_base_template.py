"""The base layout (``templates/base.html``): the top bar for logged-in staff (its operations menu for operators),
and the footer's DynamoDB panel (``templates/_dynamodb_cost.html``: one line, each call for operators), which htmx
answers carry out of band."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.test import Client, RequestFactory
from django.urls import resolve

from dashboard import navigation, urls
from dynamo.instrumentation import Call, CallLog


def test_the_panel_shows_each_call_escaped() -> None:
    call = Call("dynamodb", "Query", "T<1>", 'G"SI', None, 0.5, 0.0, 2.345, error="Throttling<x>")
    panel = render_to_string("_dynamodb_cost.html", {"log": CallLog(calls=[call]), "calls_shown": True})
    assert '<details class="cost" id="dynamodb-cost">' in panel
    assert "<summary>DynamoDB: 1 call, 0.50 RCU, 2.3 ms</summary>" in panel
    assert "<td>Query (Throttling&lt;x&gt;)</td><td>T&lt;1&gt;</td><td>G&quot;SI</td>" in panel
    assert "<td></td><td>0.50</td><td>0</td><td>2.3</td>" in panel  # no item count, RCU, WCU, ms
    assert "carry the final numbers" in panel and "refreshed" not in panel
    empty = render_to_string("_dynamodb_cost.html", {"log": CallLog(), "calls_shown": True})
    assert "no DynamoDB calls so far" in empty


def test_without_the_calls_the_panel_is_one_line() -> None:
    call = Call("dynamodb", "Query", "T<1>", "GSI1", None, 0.5, 0.0, 2.345)
    panel = render_to_string("_dynamodb_cost.html", {"log": CallLog(calls=[call])}).strip()
    assert panel == '<p class="cost" id="dynamodb-cost">DynamoDB: 1 call, 0.50 RCU, 2.3 ms</p>'


def test_the_out_of_band_panel_names_its_request() -> None:
    context = {"log": CallLog(), "oob_path": "/orders/1/?a=<b>", "calls_shown": True}
    panel = render_to_string("_dynamodb_cost.html#oob", context)
    assert panel.startswith('<template><details class="cost" id="dynamodb-cost" hx-swap-oob="innerHTML">')
    assert "/orders/1/?a=&lt;b&gt;" in panel and "<b>" not in panel
    assert '<p class="note refreshed">' in panel and panel.endswith("</details></template>")
    line = render_to_string("_dynamodb_cost.html#oob", context | {"calls_shown": False})
    assert line == (
        '<template><p class="cost" id="dynamodb-cost" hx-swap-oob="innerHTML">DynamoDB: 0 calls, 0 RCU, 0.0 ms</p>'
        "</template>"
    )


def test_an_htmx_answer_carries_the_panel_of_its_own_request(operator: Client, staff: Client) -> None:
    html = operator.get("/patterns/nope/", headers={"HX-Request": "true"}).content.decode()
    assert html.count('id="dynamodb-cost"') == 1 and "<html" not in html
    assert "/patterns/nope/" in html.split('id="dynamodb-cost"')[1]
    other = staff.get("/orders/due/?date=someday", headers={"HX-Request": "true"}).content.decode()
    assert 'id="dynamodb-cost"' not in other  # the panel is operators' only


@pytest.mark.django_db
def test_the_top_bar_shows_the_links_and_the_logout_form_to_staff_only() -> None:
    root = User.objects.create_user("root<x>", "r@example.com", "pw-root-123", is_staff=True, is_superuser=True)
    ann = User.objects.create_user("ann", "a@example.com", "pw-ann-12345", is_staff=True)
    for user, superuser in ((root, True), (ann, False)):
        client = Client()
        client.force_login(user)
        html = client.get("/patterns/").content.decode()
        assert '<a href="/orders/pending/">Orders</a>' in html and "Orders by status" not in html  # one area
        assert '<a href="/search/">Search</a>' in html
        assert 'action="/go/"' in html and 'name="kind"' not in html  # one box finds anything
        logout = html.split('<form class="logout" method="post" action="/accounts/logout/">')[1].split("</form>")[0]
        assert 'name="csrfmiddlewaretoken"' in logout
        assert f"<span>{'root&lt;x&gt;' if superuser else 'ann'}</span>" in logout
        assert ('class="staff-accounts"' in html) is superuser
    login_page = Client().get("/accounts/login/").content.decode()
    assert 'class="logout"' not in login_page and 'href="/orders/pending/"' not in login_page


@pytest.mark.django_db
def test_the_top_bar_marks_the_current_area_and_each_page_has_breadcrumbs(operator: Client) -> None:
    index = operator.get("/patterns/").content.decode()
    assert '<a href="/patterns/" aria-current="page">Access patterns</a>' in index
    assert '<summary class="current">Operations</summary>' in index  # its menu is marked too
    assert '<div class="breadcrumbs"><a href="/">Home</a> &rsaquo; Access patterns</div>' in index
    pattern = operator.get("/patterns/getCustomerByCustomerId/").content.decode()
    assert '<a href="/patterns/" aria-current="true">Access patterns</a>' in pattern  # a page inside the area
    assert '<a href="/patterns/">Access patterns</a> &rsaquo; getCustomerByCustomerId</div>' in pattern
    missing = operator.get("/no/such/page/")
    html = missing.content.decode()
    assert missing.status_code == 404 and "aria-current" not in html
    assert '<a href="/">Home</a> &rsaquo; Not found</div>' in html


def test_the_server_error_page_has_the_layout_without_a_request() -> None:
    html = render_to_string("500.html")
    assert "<h1>500 Server error</h1>" in html and 'class="breadcrumbs"' in html
    assert 'id="nav-areas"' not in html and 'class="logout"' not in html  # no user: no top bar links
    assert "admin/css/base.css" in html and "dashboard/dashboard.css" in html


@pytest.mark.django_db
def test_a_user_who_is_not_staff_gets_the_logout_form_but_not_the_areas() -> None:
    client = Client()
    client.force_login(User.objects.create_user("clerk", "c@example.com", "pw-clerk-123"))
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 403 and "staff accounts only" in html
    assert 'class="logout"' in html and 'id="nav-areas"' not in html and 'action="/go/"' not in html


def test_every_area_entry_names_a_dashboard_url_and_each_area_has_its_own_page() -> None:
    names = {f"dashboard:{pattern.name}" for pattern in urls.urlpatterns}
    assert set(navigation.AREAS) <= names, set(navigation.AREAS) - names
    own_pages = {area for area, own in navigation.AREAS.values() if own}
    assert own_pages == {area for area, _ in navigation.AREAS.values()}


@pytest.mark.parametrize(
    ("path", "area", "current"),
    [
        ("/stats/daily/", "numbers", "page"),
        ("/stats/categories/", "numbers", "true"),
        ("/categories/garden/tools/", "numbers", "true"),
        ("/catalogue/", "catalogue", "page"),
        ("/stock/import/", "catalogue", "true"),
        ("/products/2002/edit/", "catalogue", "true"),
        ("/customers/1002/edit/", None, None),
    ],
)
def test_the_numbers_and_the_catalogue_are_areas(path: str, area: str | None, current: str | None) -> None:
    request = RequestFactory().get(path)
    request.resolver_match = resolve(path)
    found = navigation.current_area(request)
    assert (found.get("nav_area"), found.get("nav_current")) == (area, current)
