"""Django's model backend, plus two savings on the one staff-database query every request makes for its user.

- The fulfilment-group membership is fetched with the user (an ``Exists`` annotation), so the order page's
  ship/cancel check costs no query of its own.
- The user is kept per process for ``STAFF_USER_CACHE_SECONDS`` (a few seconds; 0 turns it off), so a busy
  staff member's requests make no query at all. A change saved through Django in this process (the admin, a
  password change, group membership) clears the copies at once (signals, connected in ``DashboardConfig``);
  another instance sees it when its copy expires. So a deactivated account or a changed password ends the
  account's sessions on every instance within that many seconds, not at once.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef

clock: Callable[[], float] = time.monotonic
_lock = threading.Lock()
_users: dict[str, tuple[float, User]] = {}


def forget_users(**_: Any) -> None:
    """Drop every kept user (a signal receiver: any save of a user, group or membership)."""
    with _lock:
        _users.clear()


class StaffBackend(ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        keep_s = float(getattr(settings, "STAFF_USER_CACHE_SECONDS", 0))
        key = str(user_id)
        with _lock:
            kept = _users.get(key)
        if kept is not None and clock() - kept[0] < keep_s:
            return copy.copy(kept[1])  # a request's own copy: permission caches are set on it
        user = self._load(user_id)
        if user is None:
            return None
        if keep_s > 0:
            with _lock:
                _users[key] = (clock(), user)
            return copy.copy(user)
        return user

    def _load(self, user_id: Any) -> User | None:
        membership = User.groups.through.objects.filter(user=OuterRef("pk"), group__name=settings.FULFILMENT_GROUP)
        try:
            user = User._default_manager.annotate(in_fulfilment_group=Exists(membership)).get(pk=user_id)
        except User.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
