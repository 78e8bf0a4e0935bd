"""Who may change what, checked on the server for every request (GET and POST alike): superusers anything;
members of ``fulfilment`` ship, cancel and deliver orders; members of ``catalogue`` edit products, stock and
warehouses; members of ``customer-service`` edit customers. Any other staff member reads only."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AbstractUser, AnonymousUser
from django.http import HttpResponse

from dashboard.htmx import HtmxHttpRequest
from dashboard.responses import error

User = AbstractBaseUser | AnonymousUser


def can_fulfil(user: User) -> bool:
    """Ship/cancel permission: superusers and members of the ``fulfilment`` group."""
    if not isinstance(user, AbstractUser) or not user.is_authenticated or not user.is_staff:
        return False
    if user.is_superuser:
        return True
    known = getattr(user, "in_fulfilment_group", None)  # loaded with the user by dashboard.auth.StaffBackend
    if known is not None:
        return bool(known)
    return user.groups.filter(name=settings.FULFILMENT_GROUP).exists()


def needs_fulfilment(request: HtmxHttpRequest) -> HttpResponse:
    return error(request, 403, f"you need to be in the '{settings.FULFILMENT_GROUP}' group to change orders")


def _groups(user: AbstractUser) -> frozenset[str]:
    """The user's group names, read once per request: the user object is this request's own (one query at most,
    whichever permissions a page asks about)."""
    found: frozenset[str] | None = getattr(user, "_editing_groups", None)
    if found is None:
        found = frozenset(user.groups.values_list("name", flat=True))
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


def needs_group(request: HtmxHttpRequest, group: str, what: str) -> HttpResponse:
    return error(request, 403, f"you need to be in the '{group}' group to edit {what}")
