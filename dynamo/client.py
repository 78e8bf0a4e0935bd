"""Our own PynamoDB connection, for the calls PynamoDB's models do not make (batches with our own retries, Scan
segments, UpdateTable, DescribeTable, statements) and for ``TransactWrite``.

PynamoDB keeps each model's connection private; a public ``Connection`` made from the model's ``Meta`` reaches the
same endpoint, region, credentials, timeouts and retries. One is made per distinct ``Meta`` settings and kept until
``forget_connections``; its client records its calls and honours the request's deadline, as the models' do.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, cast

from pynamodb.connection import Connection
from pynamodb.models import Model

from dynamo import deadline
from dynamo.instrumentation import instrument

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_SETTINGS = (
    "region",
    "host",
    "connect_timeout_seconds",
    "read_timeout_seconds",
    "max_retry_attempts",
    "max_pool_connections",
    "extra_headers",
    "aws_access_key_id",
    "aws_secret_access_key",
    "aws_session_token",
)
_made: dict[tuple[Any, ...], Connection] = {}
_lock = threading.Lock()


def connection_of(model: type[Model]) -> Connection:
    """A PynamoDB connection with ``model``'s settings (what ``TransactWrite`` takes)."""
    settings = tuple(getattr(model.Meta, name) for name in _SETTINGS)
    with _lock:
        if settings not in _made:
            _made[settings] = Connection(**dict(zip(_SETTINGS, settings, strict=True)))
        return _made[settings]


def client_of(model: type[Model]) -> DynamoDBClient:
    """The botocore DynamoDB client of ``model``'s connection (same endpoint, region, credentials and retries)."""
    client = connection_of(model).client
    deadline.guard(instrument(client))
    # PynamoDB types the client as a bare botocore client; it is a DynamoDB one.
    return cast("DynamoDBClient", client)


def forget_connections() -> None:
    """Drop the connections made so far: the next ones resolve endpoint, region, credentials and patience afresh."""
    with _lock:
        _made.clear()
