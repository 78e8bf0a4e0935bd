"""The ``fulfilment`` group: its members may ship and cancel orders (checked in dashboard.permissions)."""

from __future__ import annotations

from django.db import migrations

from dashboard.migrations._groups import groups


class Migration(migrations.Migration):
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]
    operations = [groups("fulfilment")]
