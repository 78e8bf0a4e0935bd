"""BatchWriteItem and BatchGetItem done properly.

PynamoDB's own batch helpers resend unprocessed items immediately (no backoff) and batch_get loses order, so these
take serialized items/keys and: chunk to DynamoDB's limits (25 writes, 100 keys a call), send chunks side by side
(``dynamo.side_by_side``), and retry ``UnprocessedItems`` / ``UnprocessedKeys`` as ``dynamo.backoff.BATCHES`` says
(throttling *errors*: see ``dynamo.backoff``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from functools import partial
from typing import Any

from pynamodb.models import Model

from dynamo import backoff, side_by_side
from dynamo.backoff import Backoff
from dynamo.client import client_of
from dynamo.paging import key_names

WRITE_CHUNK = 25
GET_CHUNK = 100

Item = dict[str, dict[str, Any]]
# A progress callback, fed a count; whatever it returns is ignored (tqdm's ``update`` returns a bool).
Progress = Callable[[int], object]
WriteRequest = dict[str, Any]


class BatchIncomplete(RuntimeError):
    """Some requests were still unprocessed after every retry; ``remaining`` holds them."""

    def __init__(self, message: str, remaining: list[Any]) -> None:
        super().__init__(message)
        self.remaining = remaining


def put_request(item: Model | Item) -> WriteRequest:
    return {"PutRequest": {"Item": item.serialize() if isinstance(item, Model) else item}}


def delete_request(key: Item) -> WriteRequest:
    return {"DeleteRequest": {"Key": key}}


def _key(item: Item, key_names: Sequence[str]) -> tuple[str, ...]:
    return tuple(repr(item.get(name)) for name in key_names)


def _request_key(request: WriteRequest, key_names: Sequence[str]) -> tuple[str, ...]:
    body = request.get("PutRequest", {}).get("Item") or request.get("DeleteRequest", {}).get("Key") or {}
    return _key(body, key_names)


def chunks(seq: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [seq[i : i + size] for i in range(0, len(seq), size)]


def _until_processed(
    send: Callable[[list[Any]], list[Any]], pending: list[Any], retry: Backoff | None, what: str
) -> None:
    """``send`` the requests, then what it returns unprocessed, while ``retry`` (default ``backoff.BATCHES``) allows."""
    pauses = (retry or backoff.BATCHES).start()
    while pending := send(pending):
        if not pauses.pause():
            raise BatchIncomplete(f"{len(pending)} of {what} still unprocessed after {pauses.taken + 1} sends", pending)


def _chunked_requests(requests: Iterable[WriteRequest], key_names: Sequence[str]) -> Iterator[list[WriteRequest]]:
    """Chunks of 25; a second request for a key already in the chunk replaces the first (DynamoDB rejects
    two requests for one key in a call)."""
    chunk: dict[tuple[str, ...], WriteRequest] = {}
    for request in requests:
        key = _request_key(request, key_names)
        if key not in chunk and len(chunk) == WRITE_CHUNK:
            yield list(chunk.values())
            chunk = {}
        chunk[key] = request
    if chunk:
        yield list(chunk.values())


def batch_write(
    client: Any,
    table: str,
    requests: Iterable[WriteRequest],
    *,
    key_names: Sequence[str],
    parallel: int = 4,
    retry: Backoff | None = None,
    on_chunk: Progress | None = None,
) -> int:
    """Write everything, streamed (a few chunks in memory at most); returns how many requests were written. Chunks
    run in parallel, so a key must not appear in two chunks of one call."""

    def send(pending: list[WriteRequest]) -> list[WriteRequest]:
        return list(client.batch_write_item(RequestItems={table: pending}).get("UnprocessedItems", {}).get(table, []))

    def write(batch: list[WriteRequest]) -> int:
        _until_processed(send, batch, retry, f"{len(batch)} writes to {table}")
        if on_chunk:
            on_chunk(len(batch))
        return len(batch)

    batches = _chunked_requests(requests, key_names)
    if parallel <= 1:
        return sum(write(b) for b in batches)
    written = 0
    in_flight: set[Future[int]] = set()
    for batch in batches:
        if len(in_flight) >= parallel * 2:
            done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
            written += sum(f.result() for f in done)
        in_flight.add(side_by_side.submit(partial(write, batch)))
    return written + sum(f.result() for f in in_flight)


def write_models(model: type[Model], items: Iterable[Model], **kwargs: Any) -> int:
    return batch_write(
        client_of(model),
        str(model.Meta.table_name),
        (put_request(i) for i in items),
        key_names=key_names(model),
        **kwargs,
    )


def batch_get(
    client: Any,
    table: str,
    keys: Sequence[Item],
    *,
    key_names: Sequence[str],
    attributes: Sequence[str] | None = None,
    consistent: bool = False,
    parallel: int = 4,
    retry: Backoff | None = None,
) -> list[Item | None]:
    """Fetch items by key, at most 100 keys a call, calls in parallel; the result lines up with ``keys``
    (None where there is no item). Duplicate keys are fetched once; ``consistent``: strongly consistent reads."""
    unique: dict[tuple[str, ...], Item] = {}
    for key in keys:
        unique.setdefault(_key(key, key_names), key)
    projection: dict[str, Any] = {"ConsistentRead": True} if consistent else {}
    if attributes:
        wanted = list(dict.fromkeys([*key_names, *attributes]))
        projection |= {
            "ProjectionExpression": ", ".join(f"#a{i}" for i in range(len(wanted))),
            "ExpressionAttributeNames": {f"#a{i}": name for i, name in enumerate(wanted)},
        }
    batches = chunks(list(unique.values()), GET_CHUNK)

    def get(batch: Sequence[Item]) -> list[Item]:
        found: list[Item] = []

        def send(pending: list[Item]) -> list[Item]:
            response = client.batch_get_item(RequestItems={table: {"Keys": pending, **projection}})
            found.extend(response.get("Responses", {}).get(table, []))
            return list(response.get("UnprocessedKeys", {}).get(table, {}).get("Keys", []))

        _until_processed(send, list(batch), retry, f"{len(batch)} keys of {table}")
        return found

    results = [get(b) for b in batches] if parallel <= 1 else side_by_side.map_calls(get, batches)
    by_key = {_key(item, key_names): item for result in results for item in result}
    return [by_key.get(_key(key, key_names)) for key in keys]
