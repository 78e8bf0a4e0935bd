"""The ``operators`` group: its members open the operations pages (the access-pattern explorer, the sync, an
order's consistency) and see the footer's DynamoDB calls one by one (checked in dashboard.permissions)."""

from __future__ import annotations

from django.db import migrations

from dashboard.migrations._groups import groups


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0002_editing_groups")]
    operations = [groups("operators")]
