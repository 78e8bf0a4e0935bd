"""Watermarks: the per-source bookkeeping that lets the stream sync and a rebuild write the view side by side.

One item per shop item that has ever implied something for the view: PK ``seq#<shop PK>``, SK ``<shop SK>``.

- ``Seq``: the stream sequence number of the newest record the sync applied for that shop item. A record
  whose sequence number is not newer changes nothing (replays, stale records). Only the sync sets it.
- ``Rev``: a counter every writer of the source's view items increments, in the same step that ends its
  write, on the condition that it is still what that writer read before it started. The sync writes the
  view items, then advances the watermark (``Seq`` and ``Rev``) conditionally; a rebuild writes the view
  items of a source in one transaction that also increments ``Rev`` on the same condition. Whoever comes
  second sees the condition fail and starts again from fresh reads: the sync re-applies its records (a
  rebuild may have overwritten them), the rebuild re-reads the watermark and then the shop item. So the
  last complete write of a source's view items always started from reads made after the previous one ended.
- ``ExpiresAt``: epoch seconds, ``LIFETIME_S`` after the last write; DynamoDB's TTL deletes the item some
  time after that, so the table does not keep a watermark for every item ever written.

Why an expired (deleted) watermark cannot let an old record win: a record is older than a watermark only if
it was created before the record the watermark names, so before the watermark was written. The stream keeps
records ``STREAM_RETENTION_S`` (24 h), so once a watermark is ``LIFETIME_S`` (48 h) old, no record it was
guarding against can still be delivered by the stream. The only other way in is a dead-letter replay, so
``too_old`` refuses a record older than ``MAX_RECORD_AGE_S`` whose source has no ``Seq``: with a newer
record applied, its watermark would have been written after this record was created, less than
``LIFETIME_S`` ago, and could not have expired yet (TTL deletes items after ``ExpiresAt``, never before).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adminview import projection
from adminview.models import EXPIRES_AT
from adminview.projection import Image, ViewKey
from dynamo.paging import raw_items

STREAM_RETENTION_S = 24 * 3600
LIFETIME_S = 48 * 3600
CLOCK_MARGIN_S = 3600  # ExpiresAt is our clock, ApproximateCreationDateTime is AWS's
MAX_RECORD_AGE_S = LIFETIME_S - CLOCK_MARGIN_S
TTL_ATTRIBUTE = EXPIRES_AT
KIND = "watermark"


@dataclass(frozen=True)
class Mark:
    """A watermark as read (``exists`` False: there was none)."""

    exists: bool = False
    seq: str | None = None
    rev: int | None = None

    @property
    def next_rev(self) -> int:
        return (self.rev or 0) + 1

    @classmethod
    def of(cls, raw: Image | None) -> Mark:
        if not raw:
            return cls()
        seq = raw.get("Seq", {}).get("S")
        rev = raw.get("Rev", {}).get("N")
        return cls(True, seq, int(rev) if rev is not None else None)


def expires_at(now: float | None = None) -> int:
    return int(now if now is not None else time.time()) + LIFETIME_S


def key(source: ViewKey) -> dict[str, dict[str, str]]:
    pk, sk = projection.watermark_key(source)
    return {"PK": {"S": pk}, "SK": {"S": sk}}


def unchanged(mark: Mark) -> tuple[str, dict[str, str], dict[str, Any]]:
    """ConditionExpression (with its names and values): the watermark is still exactly ``mark``."""
    names = {"#pk": "PK", "#seq": "Seq", "#rev": "Rev"}
    values: dict[str, Any] = {}
    if not mark.exists:
        return "attribute_not_exists(#pk)", {"#pk": "PK"}, values
    parts = ["attribute_exists(#pk)"]
    if mark.seq is None:
        parts.append("attribute_not_exists(#seq)")
    else:
        parts.append("#seq = :seq")
        values[":seq"] = {"S": mark.seq}
    if mark.rev is None:
        parts.append("attribute_not_exists(#rev)")
    else:
        parts.append("#rev = :rev")
        values[":rev"] = {"N": str(mark.rev)}
    return " AND ".join(parts), names, values


def advance(table: str, source: ViewKey, mark: Mark, seq: str, now: float | None = None) -> dict[str, Any]:
    """PutItem parameters for the sync: ``seq`` applied, on the condition the watermark is still ``mark``."""
    expression, names, values = unchanged(mark)
    item = projection.watermark_item(source, seq, rev=mark.next_rev, expires_at=expires_at(now))
    params: dict[str, Any] = {"TableName": table, "Item": item, "ConditionExpression": expression}
    params["ExpressionAttributeNames"] = names
    if values:
        params["ExpressionAttributeValues"] = values
    return params


def touch(table: str, source: ViewKey, mark: Mark, now: float | None = None) -> dict[str, Any]:
    """A TransactWriteItems ``Update`` for a rebuild: ``Rev`` incremented, ``Seq`` kept (the rebuild does not
    know which stream record its read corresponds to, so later records must still apply), on the condition
    the watermark is still ``mark``."""
    expression, names, values = unchanged(mark)
    names = {**names, "#kind": "Kind", "#rev": "Rev", "#exp": TTL_ATTRIBUTE}
    values = {
        **values,
        ":kind": {"S": KIND},
        ":next": {"N": str(mark.next_rev)},
        ":exp": {"N": str(expires_at(now))},
    }
    return {
        "Update": {
            "TableName": table,
            "Key": key(source),
            "UpdateExpression": "SET #kind = :kind, #rev = :next, #exp = :exp",
            "ConditionExpression": expression,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
    }


def read(client: Any, table: str, sources: Sequence[ViewKey]) -> dict[ViewKey, Mark]:
    """The watermarks of these sources (strongly consistent: a stale ``Rev`` would only make a write fail)."""
    from dynamo.batch import batch_get

    found = batch_get(client, table, [key(s) for s in sources], key_names=("PK", "SK"), consistent=True)
    return {s: Mark.of(raw) for s, raw in zip(sources, found, strict=True)}


def read_partition(client: Any, table: str, shop_pk: str) -> dict[ViewKey, Mark]:
    """Every watermark of one shop partition (one consistent Query: they share ``seq#<shop PK>``)."""
    found = raw_items(
        client,
        "query",
        TableName=table,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": projection.watermark_key((shop_pk, ""))[0]}},
        ConsistentRead=True,
    )
    return {(shop_pk, raw["SK"]["S"]): Mark.of(raw) for raw in found}


def too_old(mark: Mark, created: object, now: float | None = None) -> bool:
    """A record (``ApproximateCreationDateTime``, epoch seconds) that must not be applied: its source has no
    applied sequence number and the record is old enough that a newer one's watermark may have expired.
    Records without a creation time (not from a stream) are judged by their sequence number alone."""
    if mark.seq is not None or not isinstance(created, int | float):
        return False
    return float(created) < (now if now is not None else time.time()) - MAX_RECORD_AGE_S
