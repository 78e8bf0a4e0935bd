"""The editing groups: ``catalogue`` edits products, stock and warehouses; ``customer-service`` edits customers
(checked in dashboard.permissions; superusers edit everything)."""

from __future__ import annotations

from django.db import migrations

from dashboard.migrations._groups import groups


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0001_fulfilment_group")]
    operations = [groups("catalogue", "customer-service")]
