from __future__ import annotations

from django.apps import AppConfig


class AdminViewConfig(AppConfig):
    name = "adminview"
    verbose_name = "Admin view (stream-fed projection of its source tables)"
