"""Watermarks: what the sync has applied, read from and written to the anchors (``adminview.anchors``), and the
condition that lets the stream sync and a rebuild write the view side by side.

Each anchor carries the sequence number last applied for every shop item it describes (``Seqs``) and ``Rev``, a
count of its writes. Every write of an anchor is a PutItem (or a transaction's Put) conditioned on ``Rev`` being
what its writer read before it started: the sync reads the anchors, writes the view items that follow from
them, then writes the anchors conditionally; a rebuild reads an anchor, *then* the shop, and writes the anchor
and its view items in one transaction conditioned the same way. Whoever comes second sees its condition fail
and starts again from fresh reads: the sync applies its records again (a rebuild may have overwritten the view
items it wrote), the rebuild reads the anchor and the shop again. So the last complete write of an anchor's view
items always started from reads made after the previous one ended, and a rebuild never writes a state older than
what the sync has applied (it read the anchor first, so any record applied since changed ``Rev``).

Expiry: a stub anchor (its shop items are all gone) only guards against replays. It carries ``ExpiresAt``,
``LIFETIME_S`` after its last write, and DynamoDB's TTL deletes it some time after that. Why that cannot let an
old record win: a record is older than an anchor's sequence number only if it was created before the record
that set it, so before the anchor was written. The stream keeps records ``STREAM_RETENTION_S`` (24 h), so once
a stub is ``LIFETIME_S`` (48 h) old, no record it was guarding against can still be delivered by the stream. The
only other way in is a dead-letter replay, so ``too_old`` refuses a record older than ``MAX_RECORD_AGE_S`` whose
shop item has no sequence number applied: with a newer record applied, the anchor would have been written after
this record was created, less than ``LIFETIME_S`` ago, and could not have expired yet (TTL deletes items after
``ExpiresAt``, never before).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from adminview import anchors, figures
from adminview.models import EXPIRES_AT
from adminview.projection import Image, ViewKey
from dynamo import ddb_json
from dynamo.conditional_writes import ConditionalPut
from shop import keys

STREAM_RETENTION_S = 24 * 3600
LIFETIME_S = 48 * 3600
CLOCK_MARGIN_S = 3600  # ExpiresAt is our clock, ApproximateCreationDateTime is AWS's
MAX_RECORD_AGE_S = LIFETIME_S - CLOCK_MARGIN_S
TTL_ATTRIBUTE = EXPIRES_AT


@dataclass(frozen=True)
class Mark:
    """A shop item's watermark as read from its anchor (``exists`` False: no anchor); ``rev`` is the anchor's."""

    exists: bool = False
    seq: str | None = None
    rev: int | None = None
    counted: figures.Contribution | None = field(default=None, compare=False)  # an order's (its #counted item)
    names: frozenset[str] = field(default=frozenset(), compare=False)  # the stored anchor's attribute names

    @property
    def next_rev(self) -> int:
        return (self.rev or 0) + 1

    @classmethod
    def of(cls, anchor: Image | None, source_sk: str | None = None, counted: Image | None = None) -> Mark:
        """From an anchor as read (and, for an order, its ``#counted`` item as read)."""
        contribution = figures.counted(_order_id(counted), counted) if counted else None
        if not anchor:
            return cls(counted=contribution)
        state = anchors.read(ddb_json.item_key(anchor), anchor)
        seq = state.applied(source_sk) if source_sk is not None else None
        return cls(True, seq, state.rev, contribution, frozenset(anchor))


def _order_id(item: Image | None) -> str:
    return keys.without_prefix(ddb_json.string(item, "PK"), keys.ORDER) or ""


def expires_at(now: float | None = None) -> int:
    return int(now if now is not None else time.time()) + LIFETIME_S


def unchanged(mark: Mark) -> tuple[str, dict[str, str], dict[str, Any]]:
    """ConditionExpression (with its names and values): the anchor is still the one read as ``mark``."""
    if not mark.exists:
        return "attribute_not_exists(#pk)", {"#pk": "PK"}, {}
    if mark.rev is None:
        return "attribute_exists(#pk) AND attribute_not_exists(#rev)", {"#pk": "PK", "#rev": anchors.REV}, {}
    return "#rev = :rev", {"#rev": anchors.REV}, {":rev": ddb_json.n(mark.rev)}


def with_expiry(anchor: Image, now: float | None = None) -> Image:
    """A stub anchor gets its ``ExpiresAt``; any other anchor keeps none."""
    if anchors.GONE in anchor:
        return {**anchor, TTL_ATTRIBUTE: ddb_json.n(expires_at(now))}
    return {name: value for name, value in anchor.items() if name != TTL_ATTRIBUTE}


def advance(table: str, key: ViewKey, mark: Mark, anchor: Image, now: float | None = None) -> dict[str, Any]:
    """PutItem parameters for the sync: the new ``anchor`` (applied now), on the condition the stored one is
    still ``mark``."""
    expression, names, values = unchanged(mark)
    applied = {**anchor, anchors.APPLIED_AT: ddb_json.n(round(time.time() if now is None else now, 3))}
    params: dict[str, Any] = {
        "TableName": table,
        "Item": with_expiry(applied, now),
        "ConditionExpression": expression,
        "ExpressionAttributeNames": names,
    }
    if values:
        params["ExpressionAttributeValues"] = values
    return params


def conditional_put(table: str, key: ViewKey, mark: Mark, anchor: Image, now: float | None = None) -> ConditionalPut:
    """The same write as ``advance``, for a batch of conditional writes: the new ``anchor`` (applied now), where
    the stored one is still ``mark`` (whose attribute names say what the new one removes)."""
    item = advance(table, key, mark, anchor, now)["Item"]
    return ConditionalPut(
        item,
        anchors.REV,
        revision=mark.rev,
        stored_names=mark.names,
        missing_revision=mark.exists and mark.rev is None,
    )


def read_anchors(client: Any, table: str, keys: Sequence[ViewKey]) -> dict[ViewKey, Image | None]:
    """Anchors by key (strongly consistent BatchGetItem, 100 keys a call); None where there is none."""
    from dynamo.batch import batch_get

    unique = list(dict.fromkeys(keys))
    found = batch_get(client, table, [ddb_json.key(*k) for k in unique], key_names=("PK", "SK"), consistent=True)
    return dict(zip(unique, found, strict=True))


def read(client: Any, table: str, sources: Sequence[ViewKey]) -> dict[ViewKey, Mark]:
    """The watermarks of these shop items (``(PK, SK)`` in the shop table), from their anchors."""
    anchored = {source: anchors.anchor_key(source, _entity_of(source)) or source for source in dict.fromkeys(sources)}
    found = read_anchors(client, table, list(anchored.values()))
    return {source: Mark.of(found[anchor], source[1]) for source, anchor in anchored.items()}


def _entity_of(source: ViewKey) -> str | None:
    """The entity a shop key names, as far as anchoring needs it (an order collection's or a customer's)."""
    pk, sk = source
    if pk.startswith(keys.ORDER):
        return "order"
    if pk.startswith(keys.CUSTOMER) and pk == sk:
        return "customer"
    return None


def too_old(mark: Mark, created: object, now: float | None = None) -> bool:
    """A record (``ApproximateCreationDateTime``, epoch seconds) that must not be applied: its shop item has no
    applied sequence number and the record is old enough that a newer one's stub anchor may have expired.
    Records without a creation time (not from a stream) are judged by their sequence number alone."""
    if mark.seq is not None or not isinstance(created, int | float):
        return False
    return float(created) < (now if now is not None else time.time()) - MAX_RECORD_AGE_S
