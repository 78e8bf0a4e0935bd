"""Django's model backend, with the user's fulfilment-group membership fetched in the same query.

The ``Exists`` annotation puts ``in_fulfilment_group`` on the user (``dashboard.permissions.can_fulfil`` reads
it), so the order page's ship/cancel check needs no query of its own. The user is loaded on every request, as
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
        membership = User.groups.through.objects.filter(user=OuterRef("pk"), group__name=settings.FULFILMENT_GROUP)
        try:
            user = User._default_manager.annotate(in_fulfilment_group=Exists(membership)).get(pk=user_id)
        except User.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
