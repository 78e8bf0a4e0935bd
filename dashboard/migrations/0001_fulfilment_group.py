"""The ``fulfilment`` group: its members may ship and cancel orders (checked in dashboard.permissions)."""

from __future__ import annotations

from django.db import migrations

GROUP = "fulfilment"


def create_group(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("auth", "Group").objects.get_or_create(name=GROUP)


def delete_group(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]
    operations = [migrations.RunPython(create_group, delete_group)]
