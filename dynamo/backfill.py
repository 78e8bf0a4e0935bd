"""Backfills: bring existing items up to a new model version, online, on the operator path (never a request). What
``run`` guarantees (conditions, rate, checkpoints, dry run): see docs/migrations.md, "The steps" (4).

A change that creates an item (a uniqueness claim) is conditioned on no item having its key yet. The rate keeps
consumed capacity down so live traffic keeps its share. A page interrupted half way is scanned again on resume: its
changed items fail the condition and count as skipped. A dry run saves no checkpoints either.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pynamodb.exceptions import DoesNotExist
from pynamodb.expressions.condition import Condition
from pynamodb.models import Model

from dynamo import checkpoints
from dynamo.arguments import DEFAULT_SEGMENTS, check_segments
from dynamo.batch import Progress
from dynamo.checkpoints import CHECKPOINT_TABLE, Checkpoint
from dynamo.client import client_of
from dynamo.instrumentation import recording
from dynamo.paging import check_limit, raw_pages
from dynamo.ratelimit import TokenBucket, parse_rate_limit
from dynamo.tables import ensure_table

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

Item = dict[str, dict[str, Any]]
DEFAULT_PAGE = 100
SAMPLES = 10


@dataclass(frozen=True)
class Change:
    """Attributes to add to one item (each must still be absent when written). With ``create``, the item is a
    new one (e.g. a uniqueness claim derived from the scanned item), written only while no item has that key."""

    key: Item
    add: Item
    note: str = ""
    create: bool = False


@dataclass(frozen=True)
class Migration:
    name: str
    description: str
    model: type[Model]  # the table to scan (its Meta.table_name, read at run time)
    candidates: Condition  # Scan filter: items that may need the change
    plan: Callable[[Item], Change | None]  # None: nothing can be derived for this item (reported)
    key_names: tuple[str, ...] = ("PK", "SK")


@dataclass
class Report:
    migration: str
    table: str
    segments: int
    dry_run: bool
    scanned: int = 0  # items read by the Scan (before the filter)
    candidates: int = 0  # items that matched the filter
    changed: int = 0
    skipped: int = 0  # already upgraded when written (condition failed)
    unresolved: int = 0  # plan could not derive a value
    would_change: int = 0  # dry run
    resumed_segments: int = 0
    already_done: bool = False
    read_units: float = 0.0
    write_units: float = 0.0
    seconds: float = 0.0
    samples: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, **counts: float) -> None:
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)

    def sample(self, text: str) -> None:
        with self._lock:
            if len(self.samples) < SAMPLES:
                self.samples.append(text)

    @property
    def items_per_second(self) -> float:
        return self.candidates / self.seconds if self.seconds else 0.0

    def summary(self) -> str:
        head = f"{self.migration} on {self.table}"
        if self.already_done:
            return f"{head}: already completed ({self.segments} segments); nothing to do (--reset scans again)"
        if self.dry_run:
            head, done = f"{head} (dry run: nothing written)", f"would change {self.would_change}"
        else:
            done = f"changed {self.changed}, skipped {self.skipped} already upgraded"
        return (
            f"{head}: scanned {self.scanned} items in {self.segments} segments, {self.candidates} candidates, "
            f"{done}, {self.unresolved} without a derivable value; "
            f"{self.read_units:.1f} RCU / {self.write_units:.1f} WCU in {self.seconds:.1f}s "
            f"({self.items_per_second:.0f} candidates/s)"
            + (f"; resumed {self.resumed_segments} segments" if self.resumed_segments else "")
        )


def _expression(condition: Condition) -> tuple[str, dict[str, str], dict[str, Any]]:
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    text = condition.serialize(names, values)
    return text, {placeholder: name for name, placeholder in names.items()}, values


def _update_params(table: str, change: Change, key_names: Sequence[str]) -> dict[str, Any]:
    names = {f"#k{i}": name for i, name in enumerate(key_names[:1])}
    sets, absent, values = [], [], {}
    for i, (name, value) in enumerate(sorted(change.add.items())):
        names[f"#a{i}"] = name
        values[f":v{i}"] = value
        sets.append(f"#a{i} = :v{i}")
        absent.append(f"attribute_not_exists(#a{i})")
    return {
        "TableName": table,
        "Key": change.key,
        "UpdateExpression": "SET " + ", ".join(sets),
        "ConditionExpression": " AND ".join(
            ["attribute_not_exists(#k0)" if change.create else "attribute_exists(#k0)", *absent]
        ),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }


@dataclass
class _Run:
    """One run's shared state; its table, segments and dry run are its report's."""

    migration: Migration
    client: DynamoDBClient
    page_size: int
    reads: TokenBucket
    writes: TokenBucket
    report: Report
    on_progress: Progress

    def segment(self, number: int) -> None:
        cp = None if self.report.dry_run else self._checkpoint(number)
        if cp is not None and cp.done:
            return
        start_key: Item | None = json.loads(cp.start_key) if cp is not None and cp.start_key else None
        if start_key:
            self.report.add(resumed_segments=1)
        expression, names, values = _expression(self.migration.candidates)
        pages = raw_pages(
            self.client,
            "scan",
            start_key=start_key,
            before_page=self.reads.wait,
            after_page=self._read,
            TableName=self.report.table,
            Segment=number,
            TotalSegments=self.report.segments,
            Limit=self.page_size,
            FilterExpression=expression,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            ReturnConsumedCapacity="TOTAL",
        )
        for page in pages:
            outcomes = Counter(self._item(raw) for raw in page.get("Items", []))
            counts = {name: outcomes[name] for name in ("changed", "skipped", "unresolved")}
            scanned = int(page.get("ScannedCount", 0))
            self.report.add(scanned=scanned, candidates=len(page.get("Items", [])), **counts)
            self.on_progress(scanned)
            last_key = page.get("LastEvaluatedKey")
            if cp is not None:
                cp.start_key = json.dumps(last_key) if last_key else None
                cp.done = last_key is None
                for name, count in {"scanned": scanned, **counts}.items():
                    setattr(cp, name, getattr(cp, name) + count)
                cp.updated_at = int(time.time())
                cp.save()

    def _checkpoint(self, number: int) -> Checkpoint:
        key = checkpoints.checkpoint_key(self.report.table, self.migration.name)
        try:  # only an absent checkpoint starts afresh: one that cannot be read stops the backfill
            return Checkpoint.get(key, number)
        except DoesNotExist:
            return Checkpoint(key, number, total_segments=self.report.segments)

    def _read(self, units: float) -> None:
        """Pay for what a Scan page or a plan's lookups consumed."""
        self.reads.spend(units)
        self.report.add(read_units=units)

    def _item(self, raw: Item) -> str:
        with recording() as log:
            change = self.migration.plan(raw)
        self._read(log.read_units)
        where = " / ".join(str(next(iter(raw[k].values()))) for k in self.migration.key_names if k in raw)
        if change is None:
            self.report.sample(f"{where}: nothing derivable, left as is")
            return "unresolved"
        if self.report.dry_run:
            self.report.add(would_change=1)
            added = ", ".join(f"{k}={next(iter(v.values()))}" for k, v in sorted(change.add.items()))
            self.report.sample(f"{where}: would set {added}{' (' + change.note + ')' if change.note else ''}")
            return "planned"
        self.writes.wait()
        outcome = "changed"
        try:
            with recording() as log:
                self.client.update_item(**_update_params(self.report.table, change, self.migration.key_names))
        except self.client.exceptions.ConditionalCheckFailedException:
            outcome = "skipped"
        self.writes.spend(log.write_units or 1.0)
        self.report.add(write_units=log.write_units)
        return outcome


def run(
    migration: Migration,
    *,
    segments: int = DEFAULT_SEGMENTS,
    page_size: int = DEFAULT_PAGE,
    dry_run: bool = False,
    rate_limit: str | None = None,
    start_over: bool = False,
    progress: Callable[[int | None], Progress] | None = None,
) -> Report:
    """Run (or resume) ``migration``; ``progress(total)`` returns a callback fed the items scanned."""
    check_segments(segments)
    check_limit(page_size)
    table = str(migration.model.Meta.table_name)
    client = client_of(migration.model)
    try:
        description: dict[str, Any] = dict(client.describe_table(TableName=table)["Table"])
    except client.exceptions.ResourceNotFoundException as exc:
        raise LookupError(f"no table {table}") from exc
    read_rate, write_rate = parse_rate_limit(rate_limit, description)
    report = Report(migration=migration.name, table=table, segments=segments, dry_run=dry_run)
    if not dry_run:
        ensure_table(CHECKPOINT_TABLE)
        if start_over:
            checkpoints.reset(table, migration.name)
        existing = checkpoints.checkpoints(table, migration.name)
        others = {int(cp.total_segments) for cp in existing} - {segments}
        if others:
            raise ValueError(
                f"{migration.name} on {table} was started with --segments {others.pop()}; resume "
                "with that, or start again with --reset"
            )
        if len(existing) == segments and all(cp.done for cp in existing):
            report.already_done = True
            return report
    started = time.monotonic()
    on_progress: Progress = progress(int(description.get("ItemCount") or 0) or None) if progress else (lambda _: None)
    state = _Run(migration, client, page_size, TokenBucket(read_rate), TokenBucket(write_rate), report, on_progress)
    with ThreadPoolExecutor(max_workers=segments, thread_name_prefix=f"backfill-{migration.name}") as pool:
        for future in [pool.submit(state.segment, n) for n in range(segments)]:
            future.result()
    report.seconds = time.monotonic() - started
    return report
