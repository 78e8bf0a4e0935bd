from __future__ import annotations

from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = "Shop back office dashboard"

    def ready(self) -> None:
        from django.contrib.auth.models import Group, User
        from django.db.models.signals import m2m_changed, post_delete, post_save

        from dashboard.auth import forget_users

        for model in (User, Group):
            post_save.connect(forget_users, sender=model, dispatch_uid=f"forget-users-{model.__name__}-save")
            post_delete.connect(forget_users, sender=model, dispatch_uid=f"forget-users-{model.__name__}-delete")
        for through in (User.groups.through, User.user_permissions.through, Group.permissions.through):
            m2m_changed.connect(forget_users, sender=through, dispatch_uid=f"forget-users-{through.__name__}")
