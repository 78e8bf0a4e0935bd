"""Which errors mean "DynamoDB did not answer", as opposed to "DynamoDB answered no" or a bug.

No answer: no connection, no response in time or a connection dropped before it, the request's deadline passed
(``dynamo.deadline``), or DynamoDB kept throttling (or said it was unavailable) through every retry. A caller
serving a person then says so (503, ``Retry-After``) instead of a 500; for a write, whether it landed is unknown.
Anything else (a failed condition, a validation error, a missing table) is handled, or is a bug, where it happens.
PynamoDB wraps botocore's errors in its own with the original as ``cause`` and ``__cause__``; the chain is followed.
"""

from __future__ import annotations

from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)
from pynamodb.exceptions import PynamoDBException

from dynamo.deadline import DeadlineExceeded

NO_ANSWER_ERRORS = (
    ConnectTimeoutError,
    ReadTimeoutError,
    EndpointConnectionError,
    ConnectionClosedError,
    DeadlineExceeded,
)
# Error codes DynamoDB answers with when it cannot serve the request now; botocore retries each of them first.
NOT_SERVING_CODES = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded", "ServiceUnavailable"}
)
# Every DynamoDB error a request path can see, for the ``except`` clause in front of ``did_not_answer``.
DYNAMODB_ERRORS = (PynamoDBException, ClientError, *NO_ANSWER_ERRORS)


def did_not_answer(exc: BaseException) -> bool:
    """True when ``exc``, or an error it wraps, means DynamoDB did not answer (see the module's docstring)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, NO_ANSWER_ERRORS):
            return True
        if isinstance(current, ClientError) and current.response.get("Error", {}).get("Code") in NOT_SERVING_CODES:
            return True
        wrapped = current.cause if isinstance(current, PynamoDBException) else None
        current = wrapped or current.__cause__
    return False
