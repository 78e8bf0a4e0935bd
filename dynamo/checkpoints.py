"""Where each backfill segment stopped: one item per (table, migration, segment) in the migrations table,
so a run killed at any point resumes from its segments' last saved Scan position."""

from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from dynamo import conf
from dynamo.models import BaseMeta, InstrumentedModel
from dynamo.tables import TableSpec


class Checkpoint(InstrumentedModel):
    """One segment's saved Scan position (``start_key``) and what it did so far."""

    class Meta(BaseMeta):
        table_name = conf.migrations_table_name()

    migration = UnicodeAttribute(hash_key=True, attr_name="Migration")  # "<table>#<migration name>"
    segment = NumberAttribute(range_key=True, attr_name="Segment")
    total_segments = NumberAttribute(attr_name="TotalSegments")
    start_key = UnicodeAttribute(null=True, attr_name="StartKey")  # JSON of the Scan's LastEvaluatedKey
    done = BooleanAttribute(default=False, attr_name="Done")
    scanned = NumberAttribute(default=0, attr_name="Scanned")
    changed = NumberAttribute(default=0, attr_name="Changed")
    skipped = NumberAttribute(default=0, attr_name="Skipped")
    unresolved = NumberAttribute(default=0, attr_name="Unresolved")
    updated_at = NumberAttribute(default=0, attr_name="UpdatedAt")


CHECKPOINT_TABLE = TableSpec(model=Checkpoint)


def checkpoint_key(table: str, migration_name: str) -> str:
    return f"{table}#{migration_name}"


def checkpoints(table: str, migration_name: str) -> list[Checkpoint]:
    return list(Checkpoint.query(checkpoint_key(table, migration_name)))


def reset(table: str, migration_name: str) -> int:
    """Forget every checkpoint of the migration on this table; the next run scans from the start."""
    found = checkpoints(table, migration_name)
    for cp in found:
        cp.delete()
    return len(found)
