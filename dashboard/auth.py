"""Django's model backend, with the user's memberships of the groups the permissions ask about fetched in the same
query.

An ``Exists`` annotation per group (``dashboard.permissions.GROUP_SETTINGS``) puts ``in_fulfilment_group``,
``in_operators_group`` and the others on the user (``dashboard.permissions`` reads them), so the operations menu
and footer on every page, and the order, customer and home pages' buttons and links, need no query of their own.
The user is loaded on every request, as Django does: a deactivated account, a changed password or a lost group
membership applies to the very next request on every instance.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef

from dashboard.permissions import GROUP_SETTINGS, loaded_as


class StaffBackend(ModelBackend):
    def get_user(self, user_id: Any) -> User | None:
        members = User.groups.through.objects.filter(user=OuterRef("pk"))
        try:
            user = User.objects.annotate(
                **{loaded_as(s): Exists(members.filter(group__name=getattr(settings, s))) for s in GROUP_SETTINGS}
            ).get(pk=user_id)
        except User.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
