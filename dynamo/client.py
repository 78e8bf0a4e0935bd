"""The one way to reach a model's connection and botocore client, for the calls PynamoDB does not wrap
(batches with our own retries, Scan segments, UpdateTable, DescribeTable) and for ``TransactWrite``.

PynamoDB keeps both behind a private ``_get_connection``, which ``dynamo.models.InstrumentedModel`` also overrides
to instrument the client on the way: a PynamoDB upgrade that moves it breaks those two places.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from pynamodb.connection import Connection
from pynamodb.models import Model

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


def connection_of(model: type[Model]) -> Connection:
    """The PynamoDB connection of ``model``'s table (what ``TransactWrite`` takes)."""
    return model._get_connection().connection


def client_of(model: type[Model]) -> DynamoDBClient:
    """The botocore DynamoDB client of ``model``'s table (same endpoint, region, credentials and retries)."""
    # PynamoDB types the client as a bare botocore client; it is a DynamoDB one.
    return cast("DynamoDBClient", connection_of(model).client)
