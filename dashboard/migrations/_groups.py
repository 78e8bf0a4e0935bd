"""The one shape of this app's migrations: auth groups made by name (undone: deleted). A group's name is fixed
once released, as ``dashboard.permissions`` and the settings name it."""

from __future__ import annotations

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def groups(*names: str) -> migrations.RunPython:
    """The operation that makes the groups ``names`` (those that already exist are kept)."""

    def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
        for name in names:
            apps.get_model("auth", "Group").objects.get_or_create(name=name)

    def delete(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
        apps.get_model("auth", "Group").objects.filter(name__in=names).delete()

    return migrations.RunPython(create, delete)
