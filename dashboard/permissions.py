"""Who may change orders: superusers and members of the fulfilment group (checked on the server)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AbstractUser, AnonymousUser
from django.http import HttpResponse

from dashboard.htmx import HtmxHttpRequest
from dashboard.responses import error


def can_fulfil(user: AbstractBaseUser | AnonymousUser) -> bool:
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
