"""Every link and button shows only to whom the server lets use it (``dashboard.permissions``, asked by templates
through ``may``): a staff member in no group, one in each group, and a superuser look at the tour's pages (its
seeded shop), and what each sees matches what the server answers them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import AnonymousUser, Group, User
from django.test import Client

from dashboard.permissions import Allowed, can_operate
from tests.dashboard import tour

pytestmark = [pytest.mark.django_db, pytest.mark.ddb_local]

GROUPS = ("fulfilment", "catalogue", "customer-service", "operators", "returns")
PENDING = f"/orders/{tour.PENDING_ORDER}/"
SHIPPED = f"/orders/{tour.SHIPPED_ORDER}/"
PRODUCT = f"/products/{tour.EDITED_PRODUCT}/"
RETURN = f"/returns/{tour.REQUESTED_RETURN}/"


@dataclass(frozen=True)
class Shown:
    """Something a page shows (``marker`` in its HTML) and who may use it."""

    name: str
    path: str
    marker: str
    allowed: Callable[[Allowed], bool]


SHOWN = [
    Shown("ship button", PENDING, 'class="ship"', lambda may: may.fulfil),
    Shown("cancel button", PENDING, 'class="cancel"', lambda may: may.fulfil),
    Shown("favourite button", PENDING, "/favourite/", lambda may: may.fulfil),
    Shown("deliver button", SHIPPED, 'class="deliver"', lambda may: may.fulfil),
    Shown("bulk buttons", "/orders/?status=PENDING", 'class="bulk-ship"', lambda may: may.fulfil),
    Shown("bulk checkboxes", "/orders/?status=PENDING", 'type="checkbox" name="order"', lambda may: may.fulfil),
    Shown("customer edit link", "/customers/1002/", 'id="edit-link"', lambda may: may.edit_customers),
    Shown("product edit link", PRODUCT, 'id="edit-link"', lambda may: may.edit_catalogue),
    Shown("stock adjust links", PRODUCT, 'id="stock-edit"', lambda may: may.edit_catalogue),
    Shown("warehouse edit link", "/warehouses/301/", 'id="edit-link"', lambda may: may.edit_catalogue),
    Shown("import stock (warehouse)", "/warehouses/301/", 'href="/stock/import/"', lambda may: may.edit_catalogue),
    Shown("import stock (catalogue)", "/catalogue/", 'href="/stock/import/"', lambda may: may.edit_catalogue),
    Shown("import stock (home)", "/", 'href="/stock/import/"', lambda may: may.edit_catalogue),
    Shown("operations menu", "/", 'id="operations-menu"', lambda may: may.operate),
    Shown("sync link", "/", 'href="/sync/"', lambda may: may.operate),
    Shown("explorer link", "/", 'href="/patterns/"', lambda may: may.operate),
    Shown("consistency link", SHIPPED, f'href="{SHIPPED}consistency/"', lambda may: may.operate),
    Shown("each DynamoDB call", "/", '<details class="cost" id="dynamodb-cost">', lambda may: may.operate),
    Shown("the DynamoDB cost line", "/orders/pending/", 'id="dynamodb-cost"', lambda may: may.operate),
    Shown("an order's version", SHIPPED, '<span class="note">version ', lambda may: may.operate),
    Shown(
        "request ids of an order's history",
        SHIPPED + "timeline/",
        '<th scope="col">request</th>',
        lambda may: may.operate,
    ),
    Shown(
        "request ids of the activity",
        "/activity/",
        '<th scope="col" class="secondary">request</th>',
        lambda may: may.operate,
    ),
    Shown("packing slips button", "/orders/?status=PENDING", 'class="bulk-slips"', lambda may: may.fulfil),
    Shown(
        "the list's access pattern",
        PRODUCT,
        'href="/patterns/getProductInventoryByProductId/"',
        lambda may: may.operate,
    ),
    Shown("approve button", RETURN, 'class="approve"', lambda may: may.handle_returns),
    Shown("reject form", RETURN, 'id="reject-form"', lambda may: may.handle_returns),
    Shown("receive form", f"/returns/{tour.APPROVED_RETURN}/", 'id="receive-form"', lambda may: may.handle_returns),
    Shown("refund form", f"/returns/{tour.RECEIVED_RETURN}/", 'id="refund-form"', lambda may: may.handle_returns),
    Shown("staff accounts (Django admin)", "/", 'href="/admin/"', lambda may: may.superuser),
    Shown("repair button", f"{SHIPPED}consistency/", "Repair from the source tables", lambda may: may.superuser),
]
# Pages whose server answer (200, else 403) each of those users must get as the links above promise.
USED: list[tuple[str, Callable[[Allowed], bool]]] = [
    ("/customers/1002/edit/", lambda may: may.edit_customers),
    (f"{PRODUCT}edit/", lambda may: may.edit_catalogue),
    ("/warehouses/301/edit/", lambda may: may.edit_catalogue),
    ("/stock/import/", lambda may: may.edit_catalogue),
    ("/patterns/", lambda may: may.operate),
    ("/sync/", lambda may: may.operate),
    (f"{SHIPPED}consistency/", lambda may: may.operate),
]


def member_of(group: str | None, *, superuser: bool = False) -> User:
    name = group or ("root" if superuser else "nobody")
    user = User.objects.create_user(
        name, f"{name}@example.com", f"pw-{name}-123", is_staff=True, is_superuser=superuser
    )
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def test_what_each_user_sees_is_what_each_may_use(shop_table: str, admin_view_table: str) -> None:
    tour.seed()
    users = [member_of(None), *(member_of(g) for g in GROUPS), member_of(None, superuser=True)]
    problems = []
    for user in users:
        may = Allowed(user)
        client = Client()
        client.force_login(user)
        pages: dict[str, str] = {}
        for shown in SHOWN:
            if shown.path not in pages:
                response = client.get(shown.path)
                allowed_page = not shown.path.endswith("consistency/") or may.operate
                assert response.status_code == (200 if allowed_page else 403), (user.username, shown.path)
                pages[shown.path] = response.content.decode()
            if (shown.marker in pages[shown.path]) is not shown.allowed(may):
                problems.append(f"{user.username}: {shown.name} {'missing' if shown.allowed(may) else 'shown'}")
        for path, allowed in USED:
            status = client.get(path).status_code
            if status != (200 if allowed(may) else 403):
                problems.append(f"{user.username}: {path} answered {status}")
    assert not problems, "\n".join(problems)


def test_who_may_do_what() -> None:
    no_one = Allowed(AnonymousUser())
    assert not any(
        (
            no_one.fulfil,
            no_one.edit_catalogue,
            no_one.edit_customers,
            no_one.handle_returns,
            no_one.operate,
            no_one.superuser,
        )
    )


@pytest.mark.parametrize(
    ("group", "superuser", "operator"),
    [(None, False, False), ("operators", False, True), ("fulfilment", False, False), (None, True, True)],
)
def test_operators_are_superusers_and_the_operators_group(group: str | None, superuser: bool, operator: bool) -> None:
    user = member_of(group, superuser=superuser)
    assert can_operate(user) is operator
    user.is_staff = False  # staff status is needed first
    assert can_operate(user) is False
