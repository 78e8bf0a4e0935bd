"""The ``finance`` group: its members may refund a return beyond what came back of it, with a reason (checked in
dashboard.permissions; superusers do too)."""

from __future__ import annotations

from django.db import migrations

from dashboard.migrations._groups import groups


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0004_returns_group")]
    operations = [groups("finance")]
