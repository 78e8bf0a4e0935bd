"""The ``returns`` group: its members approve, reject, receive and refund returns (checked in
dashboard.permissions; superusers do too)."""

from __future__ import annotations

from django.db import migrations

from dashboard.migrations._groups import groups


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0003_operators_group")]
    operations = [groups("returns")]
