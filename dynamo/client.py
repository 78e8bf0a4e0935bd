"""The one way to reach a model's botocore client, for the calls PynamoDB does not wrap (batches with our own
retries, Scan segments, UpdateTable, DescribeTable).

PynamoDB keeps the client behind a private ``_get_connection``; going through it here, and only here, means a
PynamoDB upgrade that moves it breaks one line. ``InstrumentedModel`` instruments the client on the way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from pynamodb.models import Model

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


def client_of(model: type[Model]) -> DynamoDBClient:
    """The botocore DynamoDB client of ``model``'s table (same endpoint, region, credentials and retries)."""
    # PynamoDB types the client as a bare botocore client; it is a DynamoDB one.
    return cast("DynamoDBClient", model._get_connection().connection.client)
