"""Django's model backend, with the user's fulfilment- and operators-group memberships fetched in the same query.

The ``Exists`` annotations put ``in_fulfilment_group`` and ``in_operators_group`` on the user
(``dashboard.permissions.can_fulfil`` and ``can_operate`` read them), so the order page's ship/cancel check and
the operations menu and footer, on every page, need no query of their own. The user is loaded on every request, as
Django does: a deactivated account, a changed password or a lost group membership applies to the very next
request on every instance.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef


class StaffBackend(ModelBackend):
    def get_user(self, user_id: Any) -> User | None:
        members = User.groups.through.objects.filter(user=OuterRef("pk"))
        try:
            user = User.objects.annotate(
                in_fulfilment_group=Exists(members.filter(group__name=settings.FULFILMENT_GROUP)),
                in_operators_group=Exists(members.filter(group__name=settings.OPERATORS_GROUP)),
            ).get(pk=user_id)
        except User.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
