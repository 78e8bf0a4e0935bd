"""A tour of every page of the dashboard in headless Chromium, shared by the accessibility test
(``test_accessibility``) and the screenshots (``test_screenshots``, run by ``scripts/screenshots``).

``seed`` writes a small shop through the domain code (three customers, three products in two categories, eight
orders: shipped, delivered, cancelled and pending, a favourite, staff activity and edits) and syncs the admin view;
``visits`` lists the pages, each with how to reach it: a URL, a form posted without htmx (bulk results, the 409
and CSRF pages), a form of the page filled in and sent as a person would (``Submit``: an edit's 400 and stale 409,
the stock import's dry run), or a server-side condition held while it is shown (a bug: 500; DynamoDB gone: 503;
a user who lost staff status: 403). Add a page here when you add one to the dashboard: both tests then cover it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.contrib.auth.models import Group, User

from dashboard import notify_mail
from dashboard.views import home
from dynamo import local, patience
from returns import services as returns
from shop import editing, favourites, notes, notifications, orders
from shop.audit import Actor
from shop.delivery import delivery_date_for
from shop.models import SHOP_TABLE
from shop.order_builders import PaymentSpec
from shop.orders import OrderLine
from tests import engines, factories
from tests.adminview_helpers import sync_now

T = TypeVar("T")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
USERNAME = "ann"
PASSWORD = "pw-tour-12345"
PLACED = datetime(2026, 11, 2, 9, 0)
SHIPPED_ORDER = "5002"  # shipped: shipments, a favourite, history
PENDING_ORDER = "5006"
BULK_ORDER = "5007"
LIFE_ORDER = "5008"  # pending, paid (2 x 2002, 1 x 2003): edited up, shipped in part, the rest paid in part, refunded
CATEGORIES = ("books", "garden")
EDITED_PRODUCT = "2002"  # edited by staff: latest changes, history, the stale form's 409
NOVEMBER = "from=2026-11-01&to=2026-11-30"  # the numbers pages' range: every seeded order
RETURNED_ORDERS = ("5009", "5010")  # delivered, with returns in every status (7001-7005) and a refund
REQUESTED_RETURN, APPROVED_RETURN, RECEIVED_RETURN, REFUNDED_RETURN = "7001", "7002", "7003", "7004"
STOCK_FILE = b"product_id,warehouse_id,quantity\n2001,301,90\n2002,301,120\n2003,301,many\n2999,301,5\n"


@dataclass(frozen=True)
class Look:
    """How a page is looked at: the colour scheme the system asks for, and the viewport's width."""

    scheme: str
    width: int
    height: int = 800

    def __str__(self) -> str:
        return f"{self.scheme}, {self.width} px"


DESKTOP = 1280
NARROW = 375
LOOKS = (Look("light", DESKTOP), Look("dark", DESKTOP), Look("light", NARROW), Look("dark", NARROW))


def nothing() -> None:
    """Nobody else does anything meanwhile."""


@dataclass(frozen=True)
class Submit:
    """A form of the page at the visit's path, filled in and sent as a person would: its fields typed in, its
    files chosen, its submit button clicked; ``meanwhile`` runs after the form is shown and before it is sent
    (someone else's save, for a stale form's 409)."""

    form: str  # a CSS selector of the form
    fields: dict[str, str] = field(default_factory=dict)  # name -> what is typed in
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # name -> (file name, content)
    meanwhile: Callable[[], None] = nothing


@dataclass(frozen=True)
class Visit:
    """One page of the tour: its name (the screenshot's file name), how to reach it, the status it answers."""

    name: str
    path: str
    status: int = 200
    form: dict[str, str] | None = None  # posted to ``path`` as a plain form (no htmx), CSRF token added
    csrf: bool = True  # False: the form goes without its token (the CSRF failure page)
    submit: Submit | None = None  # a form of the page at ``path``, sent by clicking its button
    condition: Callable[[], AbstractContextManager[object]] = field(default=nullcontext)


@contextmanager
def bug_on_home_page(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The home page raises an unexpected exception: Django answers with ``500.html``."""

    def broken() -> list[dict[str, Any]]:
        raise RuntimeError("a simulated bug")

    with monkeypatch.context() as patch:
        patch.setattr(home, "_table_sizes", broken)
        yield


@contextmanager
def dynamodb_gone() -> Iterator[None]:
    """Every client points at a port nothing listens on, with the dashboard's patience (503 at once)."""
    with engines.pointed_at(f"http://127.0.0.1:{local.free_port()}"):
        engines.patience_now(patience.prompt())
        try:
            yield
        finally:
            engines.patience_now(patience.PATIENT)


def price_edit_by(username: str, price: str) -> None:
    """Someone saves a new price for the edited product, as its edit form would (conditioned on what it read)."""
    seen = editing.snapshot(editing.product_target(EDITED_PRODUCT))
    values = seen.values
    editing.product_edit(
        product_id=EDITED_PRODUCT,
        seen=seen,
        name=values["Detail.Name"],
        description=values["Detail.Description"],
        price=price,
        category=values["Category"],
        actor=Actor(username),
    )


def seed() -> None:
    """Eight orders 5001-5008 over customers 1001-1003 and products 2001-2003 (10.50, 11.50, 12.50; books and
    garden; warehouse 301), placed over three days from 2 November 2026, the first five with a payment transaction
    id; 5001 delivered, 5002 shipped with a favourite, 5003 cancelled (and refunded), the rest pending; two more
    delivered orders with returns in every status (``seed_returns``); staff activity by ``ann``, who also edited
    product 2002's price and adjusted its stock; the admin view synced."""
    factories.shop_with(customers=3, products=3, categories=CATEGORIES)
    prices = {str(2001 + p): Decimal("10.50") + p for p in range(3)}
    for n in range(8):
        oid = str(5001 + n)
        lines = [OrderLine(str(2001 + n % 3), 1 + n % 2), OrderLine(str(2001 + (n + 1) % 3), 1)]
        total = sum((prices[line.product_id] * line.quantity for line in lines), Decimal(0))
        payments = [PaymentSpec("credit card", total, transaction_id=f"tx-{oid}")] if n < 5 else None
        orders.order_place(
            customer_id=str(1001 + n % 3),
            lines=lines,
            payments=payments,
            placed_at=PLACED + timedelta(days=n // 3, hours=n),
            order_id=oid,
        )
    ann = Actor(USERNAME)
    for oid in ("5001", SHIPPED_ORDER):
        orders.order_ship(order_id=oid, shipped_at=PLACED + timedelta(days=1), actor=ann)
    orders.order_deliver(order_id="5001", actor=ann)
    returns.order_cancel_with_refund(order_id="5003", actor=ann)
    favourites.favourite_add(order_id=SHIPPED_ORDER, product_id="2002", at=PLACED + timedelta(days=2), actor=ann)
    price_edit_by(USERNAME, "11.90")
    editing.stock_adjust(product_id=EDITED_PRODUCT, warehouse_id="301", delta=-2, reason="two damaged", actor=ann)
    seed_returns(ann)
    sync_now()


def seed_returns(ann: Actor) -> None:
    """Orders 5009 (2 x 2001, 1 x 2002) and 5010 (2 x 2003) of customer 1002, delivered; returns 7001
    (requested), 7002 (approved), 7003 (received), 7004 (refunded 12.50) and 7005 (rejected); a note on 5010."""
    bought = ([OrderLine("2001", 2), OrderLine("2002", 1)], [OrderLine("2003", 2)])
    for oid, lines in zip(RETURNED_ORDERS, bought, strict=True):
        orders.order_place(customer_id="1002", lines=lines, placed_at=PLACED, order_id=oid)
        orders.order_ship(order_id=oid, shipped_at=PLACED + timedelta(days=1), actor=ann)
        orders.order_deliver(order_id=oid, actor=ann)
    asked = [
        ("7001", "5009", "2001", "Arrived damaged"),
        ("7002", "5009", "2002", "Does not fit"),
        ("7003", "5010", "2003", "Not as described"),
        ("7004", "5010", "2003", "Changed my mind"),
        ("7005", "5009", "2001", "Wrong colour"),
    ]
    for n, (rid, oid, pid, why) in enumerate(asked):
        at = PLACED + timedelta(days=8 + n, hours=n)
        returns.return_request(order_id=oid, lines=[returns.Line(pid, 1, why)], requested_at=at, return_id=rid)
    for rid in ("7002", "7003", "7004"):
        returns.return_approve(return_id=rid, actor=ann)
    for rid in ("7003", "7004"):
        returns.return_receive(return_id=rid, warehouse_id="301", actor=ann)
    returns.return_refund(
        return_id="7004", amount="12.50", reference="pi_3MtwBw", actor=ann, at=PLACED + timedelta(days=20)
    )
    returns.return_reject(return_id="7005", reason="Worn and washed", actor=ann)
    notes.note_add(about="order", entity_id=RETURNED_ORDERS[1], text="Asked to be called before the refund.", actor=ann)


def visits(monkeypatch: pytest.MonkeyPatch) -> list[Visit]:
    """Every page, logged in as a superuser in the fulfilment group (so every button shows)."""
    due = delivery_date_for(PLACED + timedelta(days=1))
    year = "from=2026-01-01&to=2026-12-31"
    too_many_fields = "&".join("f=1" for _ in range(1001))  # over DATA_UPLOAD_MAX_NUMBER_FIELDS, under 4 KB
    keyed_select = f"SELECT * FROM \"{SHOP_TABLE.name}\" WHERE PK = 'o#{SHIPPED_ORDER}'"
    return [
        Visit("home", "/"),
        Visit("pending", "/orders/pending/"),
        Visit("orders", "/orders/?status=PENDING"),
        Visit("orders-oldest", f"/orders/?status=SHIPPED&sort=oldest&{NOVEMBER}"),
        Visit("orders-400", "/orders/pending/?sort=sideways&from=2026-11-31", status=400),
        Visit("search", "/search/?q=ada"),
        Visit("search-400", "/search/?q=a", status=400),
        Visit("order", f"/orders/{SHIPPED_ORDER}/"),
        Visit("slip", f"/orders/{SHIPPED_ORDER}/slip/"),
        Visit("slips", f"/orders/slips/?ids={PENDING_ORDER},{BULK_ORDER},{SHIPPED_ORDER}"),
        Visit("due", f"/orders/due/?date={due}"),
        Visit("bulk", "/orders/bulk/", form={"status": "PENDING", "action": "ship", "order": BULK_ORDER}),
        Visit("bulk-confirm", "/orders/bulk/", form={"status": "PENDING", "action": "cancel", "order": PENDING_ORDER}),
        Visit("bulk-400", "/orders/bulk/", status=400, form={"status": "PENDING", "action": "ship"}),
        Visit("customers", "/customers/"),
        Visit("customers-newest", "/customers/?sort=newest"),
        Visit("customer", "/customers/1002/"),
        Visit("invoices", f"/customers/1002/invoices/?{year}"),
        Visit("product", f"/products/2002/?{year}"),
        Visit("buyers", "/products/2002/buyers/"),
        Visit("warehouses", "/warehouses/"),
        Visit("warehouse", "/warehouses/301/"),
        Visit("patterns", "/patterns/"),
        Visit("pattern", f"/patterns/getOrderDetailsByOrderId/?order_id={SHIPPED_ORDER}"),
        Visit("partiql", "/patterns/partiql/"),
        Visit("partiql-items", "/patterns/partiql/", submit=Submit("#partiql-form", {"statement": keyed_select})),
        Visit(
            "partiql-400",
            "/patterns/partiql/",
            status=400,
            submit=Submit("#partiql-form", {"statement": f'SELECT * FROM "{SHOP_TABLE.name}" WHERE SK = ?'}),
        ),
        Visit("catalogue", "/catalogue/"),
        Visit("customer-edit", "/customers/1002/edit/"),
        Visit("product-edit", f"/products/{EDITED_PRODUCT}/edit/"),
        Visit("warehouse-edit", "/warehouses/301/edit/"),
        Visit("stock-edit", f"/products/{EDITED_PRODUCT}/stock/301/"),
        Visit(
            "edit-saved",  # the customer's page after a save, with its message and the change in its latest changes
            "/customers/1002/edit/",
            submit=Submit("#edit-form", {"name": "Customer 1002 Second"}),
        ),
        Visit(
            "edit-400", f"/products/{EDITED_PRODUCT}/edit/", status=400, submit=Submit("#edit-form", {"price": "abc"})
        ),
        Visit(
            "edit-409",
            f"/products/{EDITED_PRODUCT}/edit/",
            status=409,
            submit=Submit("#edit-form", {"price": "9.99"}, meanwhile=lambda: price_edit_by("bob", "12.40")),
        ),
        Visit("history", f"/history/product/{EDITED_PRODUCT}/"),
        Visit("stock-import", "/stock/import/"),
        Visit(
            "stock-import-dry-run",
            "/stock/import/",
            submit=Submit("#upload-form", files={"file": ("stock.csv", STOCK_FILE)}),
        ),
        Visit("consistency", f"/orders/{SHIPPED_ORDER}/consistency/"),
        Visit("consistency-repaired", f"/orders/{SHIPPED_ORDER}/consistency/repair/", form={}),
        Visit("stats-daily", f"/stats/daily/?{NOVEMBER}"),
        Visit("stats-categories", f"/stats/categories/?{NOVEMBER}"),
        Visit("stats-status", "/stats/status/"),
        Visit("stats-refunds", f"/stats/refunds/?{NOVEMBER}"),
        Visit("returns", "/returns/"),
        Visit("returns-refunded", "/returns/?status=REFUNDED"),
        Visit("return", f"/returns/{REQUESTED_RETURN}/"),
        Visit("return-approved", f"/returns/{APPROVED_RETURN}/"),
        Visit("return-received", f"/returns/{RECEIVED_RETURN}/"),
        Visit("return-refunded", f"/returns/{REFUNDED_RETURN}/"),
        Visit("order-returns", f"/orders/{RETURNED_ORDERS[1]}/"),
        Visit("return-new", f"/orders/{RETURNED_ORDERS[0]}/returns/new/"),
        Visit(
            "return-new-400",
            f"/orders/{RETURNED_ORDERS[0]}/returns/new/",
            status=400,
            form={"quantity-2001": "2", "reason-2001": "SIZE"},
        ),
        Visit(
            "return-receive-400",
            f"/returns/{APPROVED_RETURN}/receive/",
            status=400,
            form={"warehouse": "301", "received-2002": "1", "restocked-2002": "2"},
        ),
        Visit("order-timeline", f"/orders/{RETURNED_ORDERS[1]}/timeline/"),
        Visit("note-400", f"/orders/{RETURNED_ORDERS[1]}/notes/", status=400, form={"text": " "}),
        Visit(
            "return-400",
            f"/returns/{RECEIVED_RETURN}/refund/",
            status=400,
            form={"amount": "9999", "reference": "pi_x"},
        ),
        Visit("return-409", f"/returns/{REFUNDED_RETURN}/refund/", status=409, form={"amount": "1", "reference": "x"}),
        Visit("category", f"/categories/{CATEGORIES[1]}/?{NOVEMBER}"),
        Visit("activity", "/activity/"),
        Visit("sync", "/sync/"),
        Visit("error-400", "/orders/due/?date=someday", status=400),
        Visit("error-400-request", f"/orders/due/?{too_many_fields}", status=400),
        Visit("error-414", "/?q=" + "x" * 5000, status=414),
        Visit("error-403-csrf", f"/orders/{PENDING_ORDER}/ship/", status=403, form={}, csrf=False),
        Visit("error-404", "/no/such/page/", status=404),
        Visit("error-404-order", "/orders/9999/", status=404),
        Visit("error-409", f"/orders/{PENDING_ORDER}/ship/", status=409, form={"expected_version": "999"}),
        Visit("error-414", "/orders/due/?date=" + "9" * 5000, status=414),
        Visit("error-500", "/", status=500, condition=lambda: bug_on_home_page(monkeypatch)),
        Visit("error-503", f"/orders/{PENDING_ORDER}/", status=503, condition=dynamodb_gone),
        *order_life(),
    ]


def order_life() -> list[Visit]:
    """An order created by staff (the form, and its 400 for too little stock), then the life of a pending one:
    edited up (more is due), part of it shipped, part of what is due paid, a goodwill refund once the customer was
    told of the edit and the shipment. Last in the tour: they change the shop, so every page before them shows it as
    seeded."""
    life = f"/orders/{LIFE_ORDER}/"
    shipped = {"expected_version": "2", "quantity-2002": "1", "quantity-2003": "0", "carrier": "UPS"}
    return [
        Visit("order-create", "/orders/create/?customer_id=1001&products=2001,2003"),
        Visit(
            "order-create-400",
            "/orders/create/",
            status=400,
            form={"customer_id": "1001", "quantity-2001": "500", "payment": "due"},
        ),
        Visit("order-edit", life + "edit/"),
        Visit("order-edited", life + "edit/", submit=Submit("#order-edit-form", {"quantity-2003": "2"})),
        Visit("order-part-shipped", life + "ship/", form=shipped | {"tracking_number": "1Z999AA1", "notify": "yes"}),
        Visit("order-part-paid", life + "payments/", form={"amount": "10.00", "reference": "bank-transfer-118"}),
        Visit(
            "order-refunded",
            life + "refund/",
            form={
                "amount": "5.00",
                "reason": "Goodwill: the second parcel waits",
                "reference": "re-118",
                "notify": "yes",
            },
            condition=customer_told,
        ),
    ]


@contextmanager
def customer_told() -> Iterator[None]:
    """The sender has sent every notification waiting (``manage.py send_notifications --once``, here in-process)."""
    notifications.send_due(notify_mail.send)
    yield


LOGIN = Visit("login", "/accounts/login/")
NOT_STAFF = Visit("error-403", "/", status=403)  # last: the user has lost staff status


def staff_user() -> User:
    user = User.objects.create_user(USERNAME, "ann@example.com", PASSWORD, is_staff=True, is_superuser=True)
    user.groups.add(Group.objects.get_or_create(name="fulfilment")[0])
    return user


@contextmanager
def chromium() -> Iterator[Any]:
    """Headless Chromium through Playwright; the test is skipped without them."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


# How long a step in the browser may take before the tour calls it hung: a page answers in well under a second, and
# in seconds on a machine busy with other work; only a hang waits this long.
HANG_MS = 120_000
# Every htmx request a page sends, counted (before the page's own script runs): a look at the page that saw the
# count move meanwhile is taken again (``quietly``).
COUNT_HTMX_REQUESTS = """
window.htmxRequestsSent = 0;
document.addEventListener("htmx:beforeRequest", () => { window.htmxRequestsSent += 1; });
"""
# No htmx request in flight and none of its swaps settling: what the page shows is what it settled on.
SETTLED = "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
SENT = "() => window.htmxRequestsSent"


def quietly(page: Any, look: Callable[[], T]) -> T:
    """``look`` at the page while no htmx request is in flight: once the page has settled (its ``load`` requests
    answered and swapped in, no ``.htmx-request`` left), and again if one started meanwhile (a list's polling)."""
    while True:
        page.wait_for_function(SETTLED)
        sent = page.evaluate(SENT)
        seen = look()
        if page.evaluate(SENT) == sent:
            return seen


@contextmanager
def tab(browser: Any, look: Look) -> Iterator[Any]:
    """A page in a fresh context of ``look``; ``bypass_csp`` lets axe's script (and the tour's forms) in."""
    context = browser.new_context(
        viewport={"width": look.width, "height": look.height},
        color_scheme=look.scheme,
        bypass_csp=True,
    )
    context.add_init_script(COUNT_HTMX_REQUESTS)
    page = context.new_page()
    page.set_default_timeout(HANG_MS)
    try:
        yield page
    finally:
        context.close()


# Every CSS transition or animation running now, jumped to its end (the admin's links and buttons fade colours for
# 0.15 s). Finishing them, rather than awaiting their ``finished`` promises, cannot hang: a headless page that draws
# no frames may never advance an animation's clock. An endless animation cannot be finished and is left running.
TRANSITIONS_FINISHED = """() => {
  for (const animation of document.getAnimations()) {
    try { animation.finish(); } catch (endless) { /* an infinite animation has no end to jump to */ }
  }
}"""


def look_at(page: Any, look: Look) -> None:
    """Show the page already loaded in ``look``: the viewport resized, the colour scheme emulated, and the
    transitions that started finished, so what is read next is the look's own colours."""
    page.set_viewport_size({"width": look.width, "height": look.height})
    page.emulate_media(color_scheme=look.scheme)
    page.evaluate(TRANSITIONS_FINISHED)


def log_in(page: Any, base: str) -> None:
    page.goto(base + "/accounts/login/")
    page.fill("#id_username", USERNAME)
    page.fill("#id_password", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(base + "/")


POST_FORM = """([action, fields]) => {
  const form = document.createElement("form");
  form.method = "post";
  form.action = action;
  for (const [name, value] of fields) {
    const input = document.createElement("input");
    input.type = "hidden"; input.name = name; input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
}"""


def open_page(page: Any, base: str, visit: Visit) -> Any:
    """Go to the visit's page, check the status it answered with, and return the response."""
    if visit.submit is not None:
        response = submit_form(page, base + visit.path, visit.submit)
    elif visit.form is None:
        response = page.goto(base + visit.path)
    else:
        fields = dict(visit.form)
        if visit.csrf:
            fields["csrfmiddlewaretoken"] = page.locator("input[name=csrfmiddlewaretoken]").first.get_attribute("value")
        with page.expect_navigation() as navigation:
            page.evaluate(POST_FORM, [base + visit.path, list(fields.items())])
        response = navigation.value
    assert response is not None and response.status == visit.status, (visit.name, response and response.status)
    return response


def submit_form(page: Any, url: str, submit: Submit) -> Any:
    """Open ``url``, fill in ``submit``'s form, let ``meanwhile`` happen, click the form's button; the answer."""
    shown = page.goto(url)
    assert shown is not None and shown.status == 200, (url, shown and shown.status)
    form = page.locator(submit.form)
    for name, value in submit.fields.items():
        form.locator(f"[name={name}]").fill(value)
    for name, (file_name, content) in submit.files.items():
        form.locator(f"input[name={name}]").set_input_files(
            {"name": file_name, "mimeType": "text/csv", "buffer": content}
        )
    submit.meanwhile()
    with page.expect_navigation() as navigation:
        form.locator("button[type=submit]").first.click()
    return navigation.value
