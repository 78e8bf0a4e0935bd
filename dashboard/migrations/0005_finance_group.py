"""The ``finance`` group: its members may refund a return beyond what came back of it, with a reason (checked in
dashboard.permissions; superusers do too)."""

from __future__ import annotations

from django.db import migrations

GROUP = "finance"


def create_group(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("auth", "Group").objects.get_or_create(name=GROUP)


def delete_group(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0004_returns_group")]
    operations = [migrations.RunPython(create_group, delete_group)]
