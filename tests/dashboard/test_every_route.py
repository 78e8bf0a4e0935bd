"""No route answers 5xx, whatever it is sent: every URL pattern of the dashboard and the login and logout pages,
read from Django's URL resolver (a new route is walked without a line added here), fetched by a staff member in no
group and by a superuser, with GET and with POST (CSRF token given), with no parameters, empty ones, garbage ones
and a tampered cursor, its path filled with an existing id, an unknown one and garbage. Every answer is below 500
and shows no traceback.

One shop (``tour.seed``) for the module. A crawl of the pages as the superuser finds, for each route, an existing
path (the first link to it on any page; else the tour's ids) and the fields its forms send with the values they
hold (the page's own forms for GET, the forms that post to it for POST). Each request sends those names and the
few every list reads, all with the same value; then, as the superuser, the forms' own values with one field at a
time changed to an edge value (a date at the calendar's ends, a huge or negative number, a prefixed id).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import pytest
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.models import User
from django.core import signing
from django.test import Client
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve, reverse

from tests.dashboard import tour

pytestmark = [pytest.mark.django_db]

Query = dict[str, str]
# the names every list, export and range reads, sent whether or not the page shows a form for them
COMMON = ("format", "cursor", "from", "to", "date", "status", "sort", "q", "ids", "lines", "kind", "id", "reason")
GARBAGE = (
    "x" * 1000,
    "Ünïcødé ☃ 😀 \u202e",
    "\x00",
    "%00",
    "-1",
    "99999999999999999999999999",
    "1e309",
    "../../etc/passwd",
    "c#1001",
    "2026-02-30",
    "9999-12-31",
    "<script>alert(1)</script>",
)
EDGES = ("0001-01-01", "9999-12-31", "-1", "99999999999999999999", "c#1001")
PATH_GARBAGE = ("x" * 300, "Ünïcødé ☃", "\x00", "-1", "99999999999999999999", "c#1001", "%2e%2e%2f")
UNKNOWN_ID = "999999"
PATHS_PER_ROUTE = 4  # existing paths walked per route: the first with every input, the others with their forms
# a cursor as the pages sign one, altered: its signature no longer matches
TAMPERED = signing.dumps({"p": {"before": "x"}, "s": ""}, salt="dashboard.cursor.pending", compress=True)[:-3] + "abc"
EXPORTS = ({"format": "xlsx"}, {"format": "csv", "cursor": TAMPERED}, {"format": "json", "cursor": "-1"})
# the tour's ids, for a route no page links to (ids found on the pages win)
KNOWN_IDS = {
    "order_id": tour.RETURNED_ORDERS[1],
    "customer_id": "1002",
    "product_id": tour.EDITED_PRODUCT,
    "warehouse_id": "301",
    "return_id": tour.APPROVED_RETURN,
    "kind": "product",
    "entity_id": tour.EDITED_PRODUCT,
    "name": "getOrderDetailsByOrderId",
    "category": tour.CATEGORIES[1],
}


@dataclass(frozen=True)
class Route:
    name: str  # "dashboard:order", "login"
    params: tuple[str, ...]  # its path's parameters

    def url(self, values: dict[str, str]) -> str:
        """The route's path with ``values`` put in as sent (percent-quoted, so garbage reaches the resolver)."""
        marks = {p: f"zz{i}zz" for i, p in enumerate(self.params)}
        path = reverse(self.name, kwargs=marks) if marks else reverse(self.name)
        for param, mark in marks.items():
            path = path.replace(mark, quote(values[param], safe=""))
        return path


def routes() -> list[Route]:
    """Every named URL pattern of the dashboard, and the project's own (login, logout); not Django's admin site."""
    found: list[Route] = []

    def walk(patterns: list[URLPattern | URLResolver], namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.app_name == "dashboard":
                    walk(pattern.url_patterns, pattern.namespace or "")
            elif pattern.name:
                name = f"{namespace}:{pattern.name}" if namespace else pattern.name
                found.append(Route(name, tuple(pattern.pattern.regex.groupindex)))

    walk(get_resolver().url_patterns, "")
    return found


ROUTES = routes()


def route_of(url: str) -> tuple[str, dict[str, str]] | None:
    """The route a link of a page goes to, with its path's values (None: not a route of this site)."""
    path = urlsplit(url).path
    if not path.startswith("/"):
        return None
    try:
        match = resolve(path)
    except Resolver404:
        return None
    return match.view_name, {k: str(v) for k, v in match.kwargs.items()}


FIELDS = ("input", "select", "textarea", "button")


class Page(HTMLParser):
    """A page's links and forms: each form's target (``action``, ``hx-post``, ``hx-get``), method and fields with
    the values it would send as shown."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.links: list[str] = []
        self.forms: list[tuple[str, bool, Query]] = []  # (target, posts, fields)
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        self.links += [found[k] for k in ("href", "action", "hx-get", "hx-post") if found.get(k)]
        if tag == "form":
            target = found.get("action") or found.get("hx-post") or found.get("hx-get") or ""
            posts = found.get("method", "").lower() == "post" or "hx-post" in found
            self.forms.append((target, posts, {}))
        elif tag in FIELDS and self.forms and found.get("name") not in ("", None, "csrfmiddlewaretoken"):
            value = "" if found.get("type") == "file" else found.get("value", "")
            self.forms[-1][2].setdefault(found["name"], value)


@dataclass
class Crawl:
    """What the pages show: an existing path for each route, and the fields of the forms for it."""

    paths: dict[str, list[dict[str, str]]] = field(default_factory=dict)  # route name -> its paths' values
    gets: dict[str, Query] = field(default_factory=dict)  # route name -> what its own GET forms send
    posts: dict[str, Query] = field(default_factory=dict)  # route name -> what the forms posting to it send

    def note(self, route: str, values: dict[str, str]) -> bool:
        """Keep a path of ``route`` (up to ``PATHS_PER_ROUTE``, in other states: a pending order, a shipped one);
        False when it was seen or there are enough."""
        known = self.paths.setdefault(route, [])
        if values in known or len(known) >= PATHS_PER_ROUTE:
            return False
        known.append(values)
        return True

    def read(self, text: str, own: str) -> Iterator[str]:
        """Note what a page of route ``own`` links to and its forms; yields the paths of routes not seen yet."""
        page = Page(text)
        for url in page.links:
            found = route_of(url)
            if found and self.note(*found):
                yield urlsplit(url).path
        for target, posts, fields in page.forms:
            route = route_of(target) if target else (own, {})
            if route:
                for name, value in fields.items():
                    (self.posts if posts else self.gets).setdefault(route[0], {}).setdefault(name, value)


@pytest.fixture(scope="module")
def crawl(tour_shop: None, django_db_blocker: object) -> Iterator[Crawl]:
    """Every page the superuser reaches from the home page and from each route's known path, read once."""
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        user = User.objects.create_superuser("crawler", "crawler@example.com", "pw-crawler-123")
        try:
            client = Client()
            client.force_login(user)
            found = Crawl()
            queue = ["/"] + [r.url(KNOWN_IDS) for r in ROUTES if all(p in KNOWN_IDS for p in r.params)]
            seen: set[str] = set()
            while queue:
                path = queue.pop(0)
                if path in seen or (own := route_of(path)) is None:
                    continue
                seen.add(path)
                found.note(*own)
                response = client.get(path)
                if response.status_code == 200 and not response.streaming:
                    queue += found.read(response.content.decode(), own[0])
            yield found
        finally:
            user.delete()


@dataclass
class Visitor:
    """A logged-in user with a client that checks CSRF, and the token its forms send."""

    user: User
    client: Client = field(default_factory=lambda: Client(enforce_csrf_checks=True))
    token: str = ""

    def log_in(self) -> Visitor:
        self.client.force_login(self.user)
        self.client.get("/accounts/login/")  # sets the CSRF cookie
        self.token = self.client.cookies["csrftoken"].value
        return self

    def problems(self, method: str, path: str, data: Query, *, htmx: bool = False) -> list[str]:
        """What is wrong with the answer (an empty list: nothing)."""
        headers = {"HX-Request": "true"} if htmx else {}
        said = f"[{self.user.username}] {method} {path} {data!r}{' (htmx)' if htmx else ''}"
        try:
            response: Any
            if method == "GET":
                response = self.client.get(path, data, headers=headers)
            else:
                response = self.client.post(path, {**data, "csrfmiddlewaretoken": self.token}, headers=headers)
            body = b"".join(response.streaming_content) if response.streaming else response.content
        except Exception as exc:  # the test client raises what a view raised: a 500
            return [f"{said}: raised {exc!r}"]
        if SESSION_KEY not in self.client.session:  # it logged out: in again, for the rest of the walk
            self.log_in()
        if response.status_code >= 500 or b"Traceback" in body or b'File "' in body:
            return [f"{said}: {response.status_code} {body[:300]!r}"]
        return []


def garbage(names: list[str]) -> list[Query]:
    """No parameters, empty ones, each garbage value in every name, a tampered cursor, the exports."""
    sets: list[Query] = [{}, dict.fromkeys(names, "")]
    sets += [dict.fromkeys(names, value) for value in GARBAGE]
    return [*sets, {**dict.fromkeys(names, "1"), "cursor": TAMPERED}, *EXPORTS]


def one_at_a_time(form: Query) -> list[Query]:
    """The form as shown, then with each of its fields (and ``format``) in turn set to each edge value."""
    return [form] + [{**form, name: edge} for name in [*form, "format"] for edge in EDGES]


def fitting(path: str, query: Query) -> list[Query]:
    """``query`` in as many GETs as it takes for each URL to stay under the longest one a page answers."""
    if len(path) + 3 * len(urlencode(query)) < settings.MAX_URL_LENGTH or len(query) < 2:
        return [query]
    items = list(query.items())
    return fitting(path, dict(items[: len(items) // 2])) + fitting(path, dict(items[len(items) // 2 :]))


@pytest.mark.timeout(600)
@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
def test_no_input_makes_a_route_answer_5xx(route: Route, crawl: Crawl, db: None) -> None:
    found = crawl.paths.get(route.name) or [{}]
    existing = {p: found[0].get(p) or KNOWN_IDS.get(p, UNKNOWN_ID) for p in route.params}
    paths = [route.url(existing)]
    for param in route.params:
        paths += [route.url({**existing, param: value}) for value in (UNKNOWN_ID, *PATH_GARBAGE)]
    get_form, post_form = crawl.gets.get(route.name, {}), crawl.posts.get(route.name, {})
    get_names, post_names = sorted({*get_form, *COMMON}), sorted({*post_form, *COMMON})
    staff = Visitor(User.objects.create_user("walker", "walker@example.com", "pw-walker-123", is_staff=True))
    boss = Visitor(User.objects.create_superuser("boss", "boss@example.com", "pw-boss-123"))
    problems: list[str] = []
    for visitor in (staff.log_in(), boss.log_in()):
        gets, posts = garbage(get_names), garbage(post_names)
        if visitor is boss:
            gets, posts = gets + one_at_a_time(get_form), posts + one_at_a_time(post_form)
        for query in gets:
            for part in fitting(paths[0], query):
                problems += visitor.problems("GET", paths[0], part)
        for data in posts:
            problems += visitor.problems("POST", paths[0], data)
        problems += visitor.problems("GET", paths[0], gets[-1], htmx=True)
        problems += visitor.problems("POST", paths[0], {}, htmx=True)
        for path in paths[1:]:  # an unknown or garbage id
            problems += visitor.problems("GET", path, {}) + visitor.problems("POST", path, {})
    for other in [route.url(values) for values in found[1:]]:  # the same route in other states, with its forms
        for query in ({}, get_form):
            problems += boss.problems("GET", other, query)
        for data in ({}, post_form):
            problems += boss.problems("POST", other, data)
    shown = "\n".join(problems[:20])
    assert not problems, f"{len(problems)} answers of {route.name} were 5xx or showed a traceback:\n{shown}"
