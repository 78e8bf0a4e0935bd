"""Reading both tables for rebuild and verify (offline commands only, never a request path): segmented Scan pages
regrouped into partitions, so a worker holds one page and one partition; items decoded into plain values and
actions encoded on their way out, so the repair sees no DynamoDB JSON; every call waits on a token bucket (the one
``backfill --rate-limit`` uses) and pays what DynamoDB says it consumed, so a repair keeps live traffic's share.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from adminview.core import schema, values
from adminview.core.sources import Source
from adminview.tables import ViewItem, read_items, write_entries
from dynamo import ddb_json, item_codec, transactions
from dynamo.arguments import DEFAULT_SEGMENTS, check_segments
from dynamo.client import client_of
from dynamo.instrumentation import recording, run_in_context
from dynamo.paging import raw_pages
from dynamo.ratelimit import TokenBucket, parse_rate_limit

Image = dict[str, Any]

DEFAULT_PAGE = 250


def ignore(_n: int) -> None:
    """A progress callback that reports nowhere."""


@dataclass
class Table:
    """One table with its own read and write budgets."""

    client: Any
    name: str
    reads: TokenBucket = field(default_factory=lambda: TokenBucket(None))
    writes: TokenBucket = field(default_factory=lambda: TokenBucket(None))
    # A walk's transactions that add to the sums (the numbers) all touch the same few items: sent one at a time by
    # its threads, they never cancel each other as conflicting (each cancellation costs a backoff pause and a resend).
    _transacting: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def of(cls, model: type[Any], rate_limit: str | None = None) -> Table:
        return cls.named(client_of(model), str(model.Meta.table_name), rate_limit)

    @classmethod
    def named(cls, client: Any, name: str, rate_limit: str | None = None) -> Table:
        if rate_limit is None:
            return cls(client, name)
        try:
            description: dict[str, Any] = dict(client.describe_table(TableName=name)["Table"])
        except client.exceptions.ResourceNotFoundException as exc:
            raise LookupError(f"no table {name}") from exc
        read_rate, write_rate = parse_rate_limit(rate_limit, description)
        return cls(client, name, TokenBucket(read_rate), TokenBucket(write_rate))

    def item_count(self) -> int | None:
        """DynamoDB's approximate count (refreshed about every six hours): for progress bars only."""
        count = self.client.describe_table(TableName=self.name)["Table"].get("ItemCount")
        return int(count) if count else None

    def holds_nothing(self) -> bool:
        """True when a strongly consistent Scan finds no item at all (its first page empty, with nothing after)."""
        self.reads.wait()
        page = self.client.scan(TableName=self.name, Limit=1, ConsistentRead=True, ProjectionExpression=schema.PK)
        self.reads.spend(0.5)
        return not page.get("Items") and "LastEvaluatedKey" not in page

    def scan_pages(self, segment: int, segments: int, *, page_size: int = DEFAULT_PAGE) -> Iterator[list[Image]]:
        """One segment of a parallel Scan, page by page."""
        params: dict[str, Any] = {"TableName": self.name, "Segment": segment, "TotalSegments": segments}
        for page in raw_pages(
            self.client, "scan", before_page=self.reads.wait, after_page=self.reads.spend, Limit=page_size, **params
        ):
            yield [item_codec.decode(item) for item in page.get("Items", [])]

    def get_many(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], Image]:
        """Items by (PK, SK), strongly consistent, BatchGetItem 100 keys a call; absent keys are left out."""
        if not keys:
            return {}
        self.reads.wait()
        with recording() as log:
            found = read_items(keys, table=(self.client, self.name))
        self.reads.spend(log.read_units)
        return {key: item for key, item in found.items() if item is not None}

    def partition(self, pk: str) -> list[Image]:
        """Every item of one partition, strongly consistent."""
        return [item for page in self.pages_of(pk) for item in page]

    def pages_of(self, pk: str, prefix: str | None = None, *, page_size: int | None = None) -> Iterator[list[Image]]:
        """One partition's items (under ``prefix``, when given), page by page, strongly consistent."""
        condition, names, given = "#pk = :pk", {"#pk": schema.PK}, {":pk": ddb_json.s(pk)}
        limit: dict[str, Any] = {"Limit": page_size} if page_size else {}
        if prefix is not None:
            condition += " AND begins_with(#sk, :prefix)"
            names["#sk"], given[":prefix"] = schema.SK, ddb_json.s(prefix)
        pages = raw_pages(
            self.client,
            "query",
            before_page=self.reads.wait,
            after_page=self.reads.spend,
            TableName=self.name,
            KeyConditionExpression=condition,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=given,
            ConsistentRead=True,
            **limit,
        )
        return ([item_codec.decode(item) for item in page.get("Items", [])] for page in pages)

    def transact(self, actions: list[dict[str, Any]], *, alone: bool = True) -> None:
        """One TransactWriteItems of plain actions. ``alone``: it adds to the sums, so it waits for the walk's
        other transactions; one that writes only its own partitions' items goes beside them."""
        self.writes.wait()
        with self._transacting if alone else nullcontext(), recording() as log:
            transactions.write(self.client, [item_codec.encode_action(action) for action in actions])
        self.writes.spend(log.write_units or 2.0 * len(actions))

    def write_many(self, items: dict[tuple[str, str], Image | None]) -> None:
        """Plain items put whole (None: deleted), unconditionally: BatchWriteItem 25 a call, calls in parallel."""
        if not items:
            return
        self.writes.wait()
        with recording() as log:
            write_entries(items, (self.client, self.name))
        self.writes.spend(log.write_units or float(len(items)))


def partitions(
    pages: Iterator[list[Image]], on_page: Callable[[int], None] = ignore
) -> Iterator[tuple[str, list[Image]]]:
    """(partition key, its items) from Scan pages; a partition spanning pages is yielded once, whole. Should a
    Scan ever return a partition in two runs, it is yielded twice, each time with part of its items: callers
    treat what they get as a hint and read the partition again before acting on it."""
    pk: str | None = None
    items: list[Image] = []
    for page in pages:
        on_page(len(page))
        for item in page:
            item_pk = values.item_key(item)[0]
            if item_pk != pk:
                if pk is not None:
                    yield pk, items
                pk, items = item_pk, []
            items.append(item)
    if pk is not None:
        yield pk, items


def in_segments(work: Callable[[int], None], segments: int) -> None:
    """Run ``work(segment)`` for every segment in parallel threads; the first error is raised."""
    with ThreadPoolExecutor(max_workers=check_segments(segments), thread_name_prefix="adminview-walk") as pool:
        for future in [pool.submit(run_in_context(work), n) for n in range(segments)]:
            future.result()


def view_table(rate_limit: str | None = None) -> Table:
    return Table.of(ViewItem, rate_limit)


def source_table(source: Source, rate_limit: str | None = None) -> Table:
    """A source's table: its name from the source, the view's client (one account and region)."""
    return Table.named(client_of(ViewItem), source.table_name(), rate_limit)


def parallel_scan(model: type[Any], *, segments: int = DEFAULT_SEGMENTS) -> list[Image]:
    """Every item of a table (tests and small tools: this one does hold the whole table)."""
    table = Table.of(model)
    parts: list[list[Image]] = [[] for _ in range(segments)]

    def segment(n: int) -> None:
        for page in table.scan_pages(n, segments):
            parts[n] += page

    in_segments(segment, segments)
    return [item for part in parts for item in part]
