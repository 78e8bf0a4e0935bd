"""Who may change what, checked on the server for every request (GET and POST alike); each group's rights are
on its ``can_*`` function, superusers may do anything, and any other staff member reads only. Templates ask the
same functions through ``may`` (``allowed``), so a page shows a button only to whom the server would let use it."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AbstractUser, AnonymousUser
from django.http import HttpRequest, HttpResponse

from dashboard.htmx import HtmxHttpRequest
from dashboard.responses import error
from shop.lifecycle import Lifecycle

User = AbstractBaseUser | AnonymousUser


def can_fulfil(user: User) -> bool:
    """Shipping, cancelling and delivering orders: superusers and the ``fulfilment`` group."""
    return _member(user, settings.FULFILMENT_GROUP)


def needs_fulfilment(request: HtmxHttpRequest) -> HttpResponse:
    return error(request, 403, f"you need to be in the '{settings.FULFILMENT_GROUP}' group to change orders")


def _groups(user: AbstractUser) -> frozenset[str]:
    """The user's group names, read once per request (the user object is this request's own)."""
    found: frozenset[str] | None = getattr(user, "_editing_groups", None)
    if found is None:
        found = frozenset(user.groups.values_list("name", flat=True)) if user.pk is not None else frozenset()
        user._editing_groups = found  # type: ignore[attr-defined]
    return found


def _member(user: User, group: str) -> bool:
    if not isinstance(user, AbstractUser) or not user.is_authenticated or not user.is_staff or not user.is_active:
        return False
    return user.is_superuser or group in _groups(user)


def can_edit_catalogue(user: User) -> bool:
    """Products, their stock and warehouses: superusers and the ``catalogue`` group."""
    return _member(user, settings.CATALOGUE_GROUP)


def can_edit_customers(user: User) -> bool:
    """Customers: superusers and the ``customer-service`` group."""
    return _member(user, settings.CUSTOMER_SERVICE_GROUP)


def can_handle_returns(user: User) -> bool:
    """Approving, rejecting, receiving and refunding returns: superusers and the ``returns`` group."""
    return _member(user, settings.RETURNS_GROUP)


def needs_returns(request: HtmxHttpRequest) -> HttpResponse:
    return error(request, 403, f"you need to be in the '{settings.RETURNS_GROUP}' group to act on returns")


def can_handle_money(user: User) -> bool:
    """Payments and refunds on an order, a return's refund beyond what came back: superusers and ``finance``."""
    return _member(user, settings.FINANCE_GROUP)


def needs_finance(request: HtmxHttpRequest, what: str = "override a refund's bound") -> HttpResponse:
    return error(request, 403, f"you need to be in the '{settings.FINANCE_GROUP}' group to {what}")


def needs_group(request: HtmxHttpRequest, group: str, what: str) -> HttpResponse:
    return error(request, 403, f"you need to be in the '{group}' group to edit {what}")


def can_operate(user: User) -> bool:
    """The operations menu's pages and the footer's per-call breakdown: superusers and the ``operators`` group."""
    return _member(user, settings.OPERATORS_GROUP)


def needs_operator(request: HtmxHttpRequest) -> HttpResponse:
    return error(request, 403, f"this page is for operators: superusers and the '{settings.OPERATORS_GROUP}' group")


def is_superuser(user: User) -> bool:
    """Repairing the admin view, replaying dead letters, staff accounts: superusers only."""
    return isinstance(user, AbstractUser) and user.is_active and user.is_staff and user.is_superuser


RULES: dict[str, Callable[[User], bool]] = {  # what templates and lifecycle steps ask by name
    "fulfil": can_fulfil,
    "edit_catalogue": can_edit_catalogue,
    "edit_customers": can_edit_customers,
    "handle_returns": can_handle_returns,
    "handle_money": can_handle_money,
    "operate": can_operate,
    "superuser": is_superuser,
}


class Allowed:
    """What a user may do, as templates ask it (``{% if may.fulfil %}``); a page asks one or two, each when asked."""

    def __init__(self, user: User) -> None:
        self._user = user
        self._answers: dict[str, bool] = {}

    def __getattr__(self, name: str) -> bool:
        if name not in RULES:
            raise AttributeError(name)
        if name not in self._answers:
            self._answers[name] = RULES[name](self._user)
        return self._answers[name]

    def takes(self, lifecycle: Lifecycle, status: str | None) -> list[str]:
        """The actions of ``lifecycle`` from ``status`` this user may take: the buttons a page shows."""
        return [step.action for step in lifecycle.actions_from(status) if getattr(self, step.permission)]


def allowed(request: HttpRequest) -> dict[str, Allowed]:
    return {"may": Allowed(getattr(request, "user", AnonymousUser()))}
