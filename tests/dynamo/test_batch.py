"""Batch writes and gets: chunking, UnprocessedItems/Keys retried with backoff, order kept (stub clients)."""

from __future__ import annotations

from typing import Any

import pytest

from dynamo import backoff, batch
from dynamo.backoff import Backoff


class FlakyWriter:
    """Leaves the last item of every request unprocessed the first ``flaky`` times."""

    def __init__(self, flaky: int) -> None:
        self.flaky = flaky
        self.calls: list[int] = []
        self.stored: dict[str, Any] = {}

    def batch_write_item(self, RequestItems: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        ((table, requests),) = RequestItems.items()
        assert len(requests) <= 25
        self.calls.append(len(requests))
        keep = requests
        unprocessed: list[dict[str, Any]] = []
        if self.flaky > 0 and len(requests) > 1:
            self.flaky -= 1
            keep, unprocessed = requests[:-1], requests[-1:]
        for r in keep:
            self.stored[r["PutRequest"]["Item"]["PK"]["S"]] = r
        return {"UnprocessedItems": {table: unprocessed} if unprocessed else {}}


def quick(attempts: int = 10) -> Backoff:
    return Backoff(base_s=0.05, cap_s=5.0, attempts=attempts, sleep=lambda _: None)


def puts(n: int) -> list[dict[str, Any]]:
    return [batch.put_request({"PK": {"S": f"k{i}"}, "SK": {"S": "x"}}) for i in range(n)]


def test_write_chunks_of_25_and_retries_unprocessed_with_backoff() -> None:
    client, slept = FlakyWriter(flaky=3), list[float]()
    retry = Backoff(base_s=0.05, cap_s=5.0, attempts=10, sleep=slept.append)
    written = batch.batch_write(client, "T", puts(60), key_names=("PK", "SK"), parallel=1, retry=retry)
    assert written == 60 and len(client.stored) == 60
    assert client.calls[:3] == [25, 24, 1] or max(client.calls) <= 25
    assert len(slept) == 3 and all(0 <= s <= retry.cap_s for s in slept)


def test_write_gives_up_loudly() -> None:
    class Never(FlakyWriter):
        def batch_write_item(self, RequestItems: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
            ((table, requests),) = RequestItems.items()
            return {"UnprocessedItems": {table: requests}}

    with pytest.raises(batch.BatchIncomplete) as caught:
        batch.batch_write(Never(0), "T", puts(3), key_names=("PK", "SK"), parallel=1, retry=quick(attempts=4))
    assert len(caught.value.remaining) == 3 and "after 4 sends" in str(caught.value)


def test_duplicate_keys_in_a_chunk_are_merged() -> None:
    client = FlakyWriter(flaky=0)
    requests = [*puts(3), batch.put_request({"PK": {"S": "k1"}, "SK": {"S": "x"}, "V": {"S": "new"}})]
    assert batch.batch_write(client, "T", requests, key_names=("PK", "SK"), parallel=1) == 3
    assert client.stored["k1"]["PutRequest"]["Item"]["V"] == {"S": "new"}


def test_get_keeps_order_retries_unprocessed_and_fetches_100_at_most() -> None:
    class Getter:
        def __init__(self) -> None:
            self.sizes: list[int] = []
            self.first = True

        def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
            ((table, spec),) = RequestItems.items()
            keys = spec["Keys"]
            self.sizes.append(len(keys))
            assert len(keys) <= 100
            found = [{**k, "Name": {"S": k["PK"]["S"].upper()}} for k in keys if k["PK"]["S"] != "missing"]
            if self.first:  # the first call leaves half its keys unprocessed
                self.first = False
                half = len(keys) // 2
                return {"Responses": {table: found[:half]}, "UnprocessedKeys": {table: {"Keys": keys[half:]}}}
            return {"Responses": {table: found}}

    keys = [{"PK": {"S": f"c{i}"}, "SK": {"S": f"c{i}"}} for i in range(250)]
    keys.insert(7, {"PK": {"S": "missing"}, "SK": {"S": "missing"}})
    client = Getter()
    got = batch.batch_get(client, "T", keys, key_names=("PK", "SK"), parallel=3, retry=quick())
    assert [g["Name"]["S"] if g else None for g in got] == [
        None if k["PK"]["S"] == "missing" else k["PK"]["S"].upper() for k in keys
    ]
    assert sum(client.sizes) == 251 + 50 and max(client.sizes) == 100


def test_backoff_is_full_jitter_and_capped() -> None:
    import random

    from dynamo.backoff import full_jitter

    rng = random.Random(1)
    policy = backoff.BATCHES
    delays = [full_jitter(a, base=policy.base_s, cap=policy.cap_s, rng=rng) for a in range(20)]
    assert all(0 <= d <= policy.cap_s for d in delays)
    assert max(delays[:3]) <= policy.base_s * 4
