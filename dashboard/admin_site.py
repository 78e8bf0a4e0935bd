"""Staff accounts in the browser: Django's admin for users and groups, open to superusers only.

A separate ``AdminSite`` (not the default one, so nothing else gets registered on it by autodiscovery) whose
``has_permission`` requires ``is_superuser``: staff who may ship orders still cannot make themselves admins.
Its changes are recorded in Django's own history (``LogEntry``).
"""

from __future__ import annotations

from django.contrib.admin import AdminSite
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.http import HttpRequest


class StaffAccountsSite(AdminSite):
    site_header = "shop-admin: staff accounts"
    site_title = "shop-admin staff accounts"
    index_title = "Users and groups"
    site_url = "/"

    def has_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and user.is_superuser)


staff_accounts = StaffAccountsSite(name="staff-admin")
staff_accounts.register(User, UserAdmin)
staff_accounts.register(Group, GroupAdmin)
