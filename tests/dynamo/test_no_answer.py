"""Which errors mean DynamoDB did not answer (a page then answers 503), wrapped by PynamoDB or not."""

from __future__ import annotations

import pytest
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)
from pynamodb.exceptions import GetError, QueryError, TransactWriteError

from dynamo.deadline import DeadlineExceeded
from dynamo.no_answer import did_not_answer

URL = "http://dynamodb.example"


def client_error(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": code}}, "Query")


NO_ANSWER = [
    ConnectTimeoutError(endpoint_url=URL),
    ReadTimeoutError(endpoint_url=URL),
    EndpointConnectionError(endpoint_url=URL),
    ConnectionClosedError(endpoint_url=URL),
    DeadlineExceeded(seconds=2.5, operation="Query"),
    client_error("ProvisionedThroughputExceededException"),
    client_error("ThrottlingException"),
    client_error("RequestLimitExceeded"),
    client_error("ServiceUnavailable"),
]
ANSWERED = [
    client_error("ConditionalCheckFailedException"),
    client_error("ValidationException"),
    client_error("ResourceNotFoundException"),
    client_error("TransactionCanceledException"),
    NoCredentialsError(),
    ValueError("a bug"),
]


@pytest.mark.parametrize("error", NO_ANSWER, ids=lambda e: type(e).__name__ + str(e)[:30])
def test_no_answer_is_recognised_bare_and_wrapped(error: Exception) -> None:
    assert did_not_answer(error)
    assert did_not_answer(QueryError("Failed to query items", error))
    assert did_not_answer(TransactWriteError("Failed to write transaction items", error))
    try:
        raise GetError("Failed to get item") from error  # PynamoDB's own "from": the chain is followed
    except GetError as wrapped:
        assert did_not_answer(wrapped)


@pytest.mark.parametrize("error", ANSWERED, ids=lambda e: type(e).__name__ + str(e)[:30])
def test_an_answer_or_a_bug_is_not_a_missing_answer(error: Exception) -> None:
    assert not did_not_answer(error)
    assert not did_not_answer(QueryError("Failed to query items", error))
