"""Rebuild and verify: the view as the shop table implies it, from a parallel segmented Scan.

Scans are for these offline commands only, never for a request path.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

from adminview import projection
from adminview.apply import KEY_NAMES
from adminview.models import ViewItem
from adminview.projection import Image, ViewKey
from dynamo.batch import Progress, batch_write, delete_request, put_request
from dynamo.client import client_of
from dynamo.instrumentation import run_in_context

DEFAULT_SEGMENTS = 4


def parallel_scan(
    model: type[Any], *, segments: int = DEFAULT_SEGMENTS, on_page: Progress | None = None
) -> list[Image]:
    """Every item of the model's table (raw DynamoDB JSON), ``segments`` Scan segments in parallel threads."""
    client, table = client_of(model), str(model.Meta.table_name)

    def segment(n: int) -> list[Image]:
        items: list[Image] = []
        kwargs: dict[str, Any] = {"TableName": table, "Segment": n, "TotalSegments": segments, "ConsistentRead": True}
        while True:
            page = client.scan(**kwargs)
            items += cast("list[Image]", page.get("Items", []))  # the stubs' TypedDicts, as plain Images
            if on_page:
                on_page(len(page.get("Items", [])))
            if "LastEvaluatedKey" not in page:
                return items
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    with ThreadPoolExecutor(max_workers=segments) as pool:
        return [i for part in pool.map(run_in_context(segment), range(segments)) for i in part]


@dataclass
class Diff:
    missing: dict[ViewKey, Image] = field(default_factory=dict)
    extra: dict[ViewKey, Image] = field(default_factory=dict)
    differing: dict[ViewKey, tuple[Image, Image]] = field(default_factory=dict)  # key -> (expected, actual)

    @property
    def clean(self) -> bool:
        return not (self.missing or self.extra or self.differing)

    def summary(self, examples: int = 5) -> str:
        lines = [f"missing {len(self.missing)}, extra {len(self.extra)}, differing {len(self.differing)}"]
        for label, found in (("missing", self.missing), ("extra", self.extra), ("differing", self.differing)):
            for key in sorted(found)[:examples]:
                lines.append(f"  {label}: {key[0]} {key[1]}")
        return "\n".join(lines)


def expected_and_actual(
    *, segments: int = DEFAULT_SEGMENTS, on_page: Progress | None = None
) -> tuple[dict[ViewKey, Image], dict[ViewKey, Image]]:
    from shop.models import ShopItem

    expected = projection.expected_view(parallel_scan(ShopItem, segments=segments, on_page=on_page))
    actual = {
        projection.key_of(i): i
        for i in parallel_scan(ViewItem, segments=segments, on_page=on_page)
        if projection.is_view_item(i)
    }
    return expected, actual


def diff(expected: dict[ViewKey, Image], actual: dict[ViewKey, Image]) -> Diff:
    result = Diff()
    for key, item in expected.items():
        if key not in actual:
            result.missing[key] = item
        elif actual[key] != item:
            result.differing[key] = (item, actual[key])
    result.extra = {k: v for k, v in actual.items() if k not in expected}
    return result


def verify(**kwargs: Any) -> Diff:
    return diff(*expected_and_actual(**kwargs))


def rebuild(
    *,
    segments: int = DEFAULT_SEGMENTS,
    on_page: Progress | None = None,
    on_write: Progress | None = None,
) -> Diff:
    """Make the view equal to what the shop table implies; returns what had to change. Watermarks are kept
    (they only ever stop older records from overwriting newer state)."""
    found = verify(segments=segments, on_page=on_page)
    requests = [put_request(i) for i in found.missing.values()]
    requests += [put_request(expected) for expected, _ in found.differing.values()]
    requests += [delete_request({"PK": {"S": pk}, "SK": {"S": sk}}) for pk, sk in found.extra]
    if requests:
        batch_write(
            client_of(ViewItem), str(ViewItem.Meta.table_name), requests, key_names=KEY_NAMES, on_chunk=on_write
        )
    return found
