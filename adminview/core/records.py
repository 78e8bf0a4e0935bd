"""What a stream record is, read from its ``eventName`` and the stream's ``StreamViewType``.

The fold reads one image per record: the new one of an INSERT or a MODIFY, the old one of a REMOVE. The streams
must be ``NEW_AND_OLD_IMAGES``: a stream configured for less leaves out the old image a REMOVE needs, and a REMOVE
without it would silently look like nothing. A MODIFY must carry its OldImage too, so a misconfigured stream shows
with its first change, not its first delete; a record that falls short fails alone, its error naming the cause.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

NEEDED_VIEW_TYPE = "NEW_AND_OLD_IMAGES"
VIEW_TYPES = ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", NEEDED_VIEW_TYPE)
# DynamoDB Local floors a record's ApproximateCreationDateTime to the minute (AWS: to the second), so a creation
# time that is a whole minute is not taken as the moment of the change: it may have been made up to a minute later.
COARSE_S = 60
# which images each kind of change must carry for the projection
NEEDS: dict[str, tuple[str, ...]] = {
    "INSERT": ("NewImage",),
    "MODIFY": ("NewImage", "OldImage"),
    "REMOVE": ("OldImage",),
}


class UnusableRecord(ValueError):
    """A stream record the sync cannot apply as it is: malformed, or from a misconfigured stream."""


def body_of(record: Any) -> dict[str, Any]:
    """The record's ``dynamodb`` part, or an empty dict when it is missing, null or not an object."""
    body = record.get("dynamodb") if isinstance(record, dict) else None
    return body if isinstance(body, dict) else {}


def sequence_number(record: Any) -> str | None:
    seq = body_of(record).get("SequenceNumber")
    return str(seq) if seq not in (None, "") else None


def created_at(record: Any) -> float | None:
    """``ApproximateCreationDateTime`` as epoch seconds (Lambda delivers a number, boto3 a datetime), else None."""
    value = body_of(record).get("ApproximateCreationDateTime")
    if isinstance(value, datetime):
        return value.timestamp()
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def written_at(record: Any, received_at: float) -> float | None:
    """The latest moment the record's change can have been made, from what the sync knows: its creation time when
    that is precise; a whole minute (coarse, ``COARSE_S``) bounds it from below only, so then the end of that
    minute or the moment the sync received the record, whichever came first: a lag is never the engine's rounding."""
    at = created_at(record)
    if at is None or at % COARSE_S:
        return at
    return min(at + COARSE_S, max(at, received_at))


def check(record: Any) -> str:
    """The record's ``eventName`` when it can be applied; else ``UnusableRecord`` naming the cause."""
    if not isinstance(record, dict):
        raise UnusableRecord(f"stream record is not an object ({type(record).__name__})")
    body = record.get("dynamodb")
    if not isinstance(body, dict):
        state = "missing" if "dynamodb" not in record else "null" if body is None else type(body).__name__
        raise UnusableRecord(f"stream record has no 'dynamodb' part ({state})")
    event = record.get("eventName")
    if event not in NEEDS:
        raise UnusableRecord(f"unknown eventName {event!r} (expected INSERT, MODIFY or REMOVE)")
    view_type = body.get("StreamViewType")
    if view_type is not None and view_type not in VIEW_TYPES:
        raise UnusableRecord(f"unknown StreamViewType {view_type!r}")
    missing = [name for name in NEEDS[event] if not isinstance(body.get(name), dict)]
    if missing:
        what = " and ".join(missing)
        if view_type is None or view_type == NEEDED_VIEW_TYPE:
            seen = f"stream view type {view_type}" if view_type else "no StreamViewType"
            raise UnusableRecord(f"{event} record without {what} ({seen}): malformed record")
        raise UnusableRecord(
            f"{event} record without {what}: the stream's view type is {view_type}, "
            f"the sync needs {NEEDED_VIEW_TYPE} (change the table's StreamSpecification)"
        )
    if sequence_number(record) is None:
        raise UnusableRecord(f"{event} record without a SequenceNumber")
    return str(event)
