"""An HTTP proxy to DynamoDB Local that answers a share of the admin view's calls as DynamoDB does when a partition or
an index runs out of capacity, so the sync can be run against the throttling it meets on AWS.

The admin view's calls are those naming its table (``TableName``, ``RequestItems``, a transaction's actions) and
every stream read (``GetRecords``); the rest go through untouched. A call picked (the first of each operation, then a
quarter of them at random, seeded) is answered:

- PutItem, UpdateItem, DeleteItem, GetItem, Query, BatchGetItem: HTTP 400 ``ProvisionedThroughputExceededException``;
- BatchWriteItem: forwarded with half its requests, the other half handed back as ``UnprocessedItems``;
- BatchExecuteStatement: forwarded with its first half of statements, the others each answered ``ThrottlingError``;
- TransactWriteItems: HTTP 400 ``TransactionCanceledException``, one reason per action, ``ThrottlingError`` for one
  action on the view and ``None`` for the others; nothing is written;
- GetRecords: HTTP 400 ``LimitExceededException``.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import zlib
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from tests.dynamo.cancelling import cancellation_message

ERROR_TYPE = "com.amazonaws.dynamodb.v20120810#"
THROTTLED_ERROR = {
    "ProvisionedThroughputExceededException": "The level of configured provisioned throughput for the table was "
    "exceeded. Consider increasing your provisioning level with the UpdateTable API.",
    "LimitExceededException": "Too many requests for this shard: slow down.",
}
ANSWERED_THROTTLED = frozenset({"PutItem", "UpdateItem", "DeleteItem", "GetItem", "Query", "BatchGetItem"})
THROTTLING_REASON = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or "
    "index so please try again shortly."
)


class ThrottlingProxy:
    """Listens on 127.0.0.1 (``endpoint``), forwards to ``target``; ``injected`` counts the answers it made up, by
    operation. A context manager: serves in a thread while the block runs."""

    def __init__(self, target: str, *, table: str, share: float = 0.25, seed: int = 7) -> None:
        self.target = urlsplit(target)
        self.table = table
        self.share = share
        self.injected: Counter[str] = Counter()
        self.forwarded = 0
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="throttling-proxy", daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> ThrottlingProxy:
        self._thread.start()
        return self

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.target.hostname or "127.0.0.1", self.target.port, timeout=30)

    def _names_view(self, operation: str, body: dict[str, Any]) -> bool:
        if operation == "GetRecords":
            return True
        if operation == "TransactWriteItems":
            return any(self._view_actions(body))
        if operation == "BatchExecuteStatement":
            return any(f'"{self.table}"' in s["Statement"] for s in body["Statements"])
        return body.get("TableName") == self.table or self.table in body.get("RequestItems", {})

    def _view_actions(self, body: dict[str, Any]) -> list[bool]:
        return [next(iter(a.values())).get("TableName") == self.table for a in body.get("TransactItems", [])]

    def pick(self, operation: str, body: dict[str, Any]) -> bool:
        """Whether to answer this call as throttled (and count it)."""
        if not self._names_view(operation, body):
            return False
        with self._lock:
            if operation == "BatchWriteItem" and len(body["RequestItems"][self.table]) < 2:
                picked = False  # DynamoDB answers an error when it processes none: left to the other operations
            else:
                picked = operation not in self.injected or self._rng.random() < self.share
            if picked:
                self.injected[operation] += 1
            return picked

    def note_forwarded(self) -> None:
        with self._lock:
            self.forwarded += 1

    def cancellation(self, body: dict[str, Any]) -> dict[str, Any]:
        on_view = [i for i, named in enumerate(self._view_actions(body)) if named]
        with self._lock:
            throttled = self._rng.choice(on_view)
        codes = ["ThrottlingError" if i == throttled else "None" for i in range(len(body["TransactItems"]))]
        reasons = [{"Code": code, "Message": THROTTLING_REASON} if code != "None" else {"Code": code} for code in codes]
        return {
            "__type": ERROR_TYPE + "TransactionCanceledException",
            "Message": cancellation_message(codes),
            "CancellationReasons": reasons,
        }


def _handler_for(proxy: ThrottlingProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep botocore's connections open, as DynamoDB does

        def setup(self) -> None:
            super().setup()
            self.upstream = proxy.connect()

        def finish(self) -> None:
            self.upstream.close()
            super().finish()

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            operation = self.headers.get("X-Amz-Target", "").rpartition(".")[2]
            body = json.loads(raw or b"{}")
            if not proxy.pick(operation, body):
                self.relay(*self.forward(raw))
            elif operation == "BatchWriteItem":
                self.relay(*self.half_processed(body))
            elif operation == "BatchExecuteStatement":
                self.relay(*self.half_executed(body))
            elif operation == "TransactWriteItems":
                self.answer(400, proxy.cancellation(body))
            elif operation == "GetRecords":
                self.answer(400, _error("LimitExceededException"))
            elif operation in ANSWERED_THROTTLED:
                self.answer(400, _error("ProvisionedThroughputExceededException"))
            else:
                self.relay(*self.forward(raw))

        def forward(self, raw: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in {"content-length", "connection"}}
            self.upstream.request("POST", self.path, body=raw, headers=headers | {"Content-Length": str(len(raw))})
            response = self.upstream.getresponse()
            proxy.note_forwarded()
            return response.status, response.getheaders(), response.read()

        def half_processed(self, body: dict[str, Any]) -> tuple[int, list[tuple[str, str]], bytes]:
            requests = body["RequestItems"][proxy.table]
            kept, handed_back = requests[: len(requests) // 2], requests[len(requests) // 2 :]
            status, headers, answer = self.forward(json.dumps(body | {"RequestItems": {proxy.table: kept}}).encode())
            if status != 200:
                return status, headers, answer
            parsed = json.loads(answer)
            unprocessed = parsed.setdefault("UnprocessedItems", {})
            unprocessed[proxy.table] = unprocessed.get(proxy.table, []) + handed_back
            return status, headers, json.dumps(parsed).encode()

        def half_executed(self, body: dict[str, Any]) -> tuple[int, list[tuple[str, str]], bytes]:
            statements = body["Statements"]
            kept, throttled = statements[: len(statements) // 2], statements[len(statements) // 2 :]
            answers: list[dict[str, Any]] = []
            status, headers = 200, [("Content-Type", "application/x-amz-json-1.0")]
            if kept:
                status, headers, answer = self.forward(json.dumps(body | {"Statements": kept}).encode())
                if status != 200:
                    return status, headers, answer
                answers = json.loads(answer)["Responses"]
            answers += [{"Error": {"Code": "ThrottlingError", "Message": THROTTLING_REASON}} for _ in throttled]
            return status, headers, json.dumps({"Responses": answers}).encode()

        def answer(self, status: int, payload: dict[str, Any]) -> None:
            self.relay(status, [("Content-Type", "application/x-amz-json-1.0")], json.dumps(payload).encode())

        def relay(self, status: int, headers: list[tuple[str, str]], payload: bytes) -> None:
            self.send_response(status)
            for name, value in headers:
                if name.lower() not in {
                    "content-length",
                    "connection",
                    "x-amz-crc32",
                    "transfer-encoding",
                    "server",
                    "date",
                }:
                    self.send_header(name, value)
            self.send_header("x-amz-crc32", str(zlib.crc32(payload)))  # botocore checks it against the body
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def _error(code: str) -> dict[str, str]:
    return {"__type": ERROR_TYPE + code, "message": THROTTLED_ERROR[code]}
