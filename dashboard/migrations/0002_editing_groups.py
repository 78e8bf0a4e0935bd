"""The editing groups: ``catalogue`` edits products, stock and warehouses; ``customer-service`` edits customers
(checked in dashboard.permissions; superusers edit everything)."""

from __future__ import annotations

from django.db import migrations

GROUPS = ("catalogue", "customer-service")


def create_groups(apps, schema_editor):  # type: ignore[no-untyped-def]
    for name in GROUPS:
        apps.get_model("auth", "Group").objects.get_or_create(name=name)


def delete_groups(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("auth", "Group").objects.filter(name__in=GROUPS).delete()


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0001_fulfilment_group")]
    operations = [migrations.RunPython(create_groups, delete_groups)]
