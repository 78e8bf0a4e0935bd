"""DynamoDB's cancellation of a transaction, as botocore raises it, for fake clients."""

from __future__ import annotations

from typing import Any

import boto3

# Only for its exception classes: botocore's own TransactionCanceledException, as the real client raises it.
EXCEPTIONS = boto3.client(
    "dynamodb", region_name="us-east-1", aws_access_key_id="fake", aws_secret_access_key="fake"
).exceptions


def cancellation_message(codes: list[str]) -> str:
    """DynamoDB's message for a cancelled transaction: the codes of every action, in request order."""
    return f"Transaction cancelled, please refer cancellation reasons for specific reasons [{', '.join(codes)}]"


def cancellation(*codes: str | None) -> Exception:
    """What botocore raises for DynamoDB's answer: one reason per action, "None" for those that did not fail."""
    named = [code or "None" for code in codes]
    response: Any = {  # botocore-stubs type an error response without its modeled fields
        "Error": {"Code": "TransactionCanceledException", "Message": cancellation_message(named)},
        "CancellationReasons": [
            {"Code": code, "Message": f"{code} happened"} if code else {"Code": "None"} for code in codes
        ],
    }
    return EXCEPTIONS.TransactionCanceledException(response, "TransactWriteItems")
