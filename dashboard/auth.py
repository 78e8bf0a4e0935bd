"""Django's model backend, plus the fulfilment-group membership fetched with the user: every request loads the
user anyway, so the order page's ship/cancel check costs no query of its own."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef


class StaffBackend(ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        membership = User.groups.through.objects.filter(user=OuterRef("pk"), group__name=settings.FULFILMENT_GROUP)
        try:
            user = User._default_manager.annotate(in_fulfilment_group=Exists(membership)).get(pk=user_id)
        except User.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
