"""Staff accounts in the browser: Django's admin for users and groups, on its own ``AdminSite`` (so autodiscovery
registers nothing else on it) open to superusers only: staff who may ship orders cannot make themselves admins."""

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
