"""What a walk of the tables works on (``adminview.repair.walk``), shared by its two passes: the view, each source's
table, the diff both note into, and how they read (list shards, Scan segments, page size)."""

from __future__ import annotations

from dataclasses import dataclass

from adminview.core.sources import Source
from adminview.repair.table_walk import Table
from adminview.repair.view_diff import Diff


@dataclass
class Scope:
    view: Table
    tables: dict[str, Table]  # each source's table, by source name
    diff: Diff
    shards: int
    segments: int
    page_size: int

    def table(self, source: Source) -> Table:
        return self.tables[source.name]
