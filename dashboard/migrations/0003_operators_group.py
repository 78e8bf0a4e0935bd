"""The ``operators`` group: its members open the operations pages (the access-pattern explorer, the sync, an
order's consistency) and see the footer's DynamoDB calls one by one (checked in dashboard.permissions)."""

from __future__ import annotations

from django.db import migrations

GROUP = "operators"


def create_group(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("auth", "Group").objects.get_or_create(name=GROUP)


def delete_group(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0002_editing_groups")]
    operations = [migrations.RunPython(create_group, delete_group)]
