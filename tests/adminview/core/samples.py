"""Stream records shaped like AWS's published sample event (``data/sam-dynamodb-update.json``), with shop items.

The sample's envelope (eventID, eventVersion, eventSource, awsRegion, eventSourceARN, the ``dynamodb`` part's
ApproximateCreationDateTime, SizeBytes, StreamViewType) is kept; keys, images and sequence numbers come from
records the shop's real stream produced, so the projection has something meaningful to apply.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from shop import keys as shop_keys

SAMPLE = Path(__file__).parent / "data" / "sam-dynamodb-update.json"
PLACEHOLDERS = {
    "{{{region}}}": "us-east-1",
    "{{{partition}}}": "aws",
    "{{{account_id}}}": "123456789012",
    "{{{table}}}": "OnlineShop",
}


def sample_event() -> dict[str, Any]:
    """AWS's sample event, its stream ARN naming the shop table the test writes (the handler dispatches by it)."""
    text = SAMPLE.read_text()
    for placeholder, value in (PLACEHOLDERS | {"{{{table}}}": shop_keys.table_name()}).items():
        text = text.replace(placeholder, value)
    event: dict[str, Any] = json.loads(text)
    return event


def sample_record(event_name: str) -> dict[str, Any]:
    """The sample event's record of that kind (INSERT, MODIFY, REMOVE), a fresh copy."""
    record = next(r for r in sample_event()["Records"] if r["eventName"] == event_name)
    return copy.deepcopy(record)


def shaped(
    real: dict[str, Any],
    *,
    event_name: str | None = None,
    view_type: str = "NEW_AND_OLD_IMAGES",
    images: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """The sample's record for ``event_name`` (default: the real record's) carrying the real record's keys,
    sequence number, creation time and the ``images`` named (default: those the real record has), as a stream of
    ``view_type`` would deliver it."""
    name = event_name or real["eventName"]
    record = sample_record(name)
    body = record["dynamodb"]
    source = real["dynamodb"]
    body["Keys"] = copy.deepcopy(source["Keys"])
    body["SequenceNumber"] = source["SequenceNumber"]
    if "ApproximateCreationDateTime" in source:  # when it was written, not the sample's 2016 date
        body["ApproximateCreationDateTime"] = source["ApproximateCreationDateTime"]
    body["StreamViewType"] = view_type
    for image in ("NewImage", "OldImage"):
        body.pop(image, None)
        if image in source and (images is None or image in images):
            body[image] = copy.deepcopy(source[image])
    record["eventID"] = real["eventID"]
    return record
