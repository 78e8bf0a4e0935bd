"""The audit trail: an item of the shop table written in the same TransactWriteItems as the change (a transaction
spans tables), so it exists exactly when its change does. Where entries live: docs/staff-work.md, "Audit trail".
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypedDict, Unpack

from dynamo.transactions import Transaction
from shop import keys
from shop.errors import InvalidInput
from shop.models import AttributeChange, AuditEntry, ShopItem

MAX_USER = 150  # Django's username length
MAX_DETAIL = 500  # the one-line summary the activity list shows
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._\-]{1,64}$")


@dataclass(frozen=True)
class Actor:
    """The staff member behind a change and the request that made it (plain values: no Django here)."""

    username: str
    request_id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.username, str) or not 0 < len(self.username) <= MAX_USER:
            raise InvalidInput(f"an actor's username is 1 to {MAX_USER} characters")
        if self.request_id is not None and not _REQUEST_ID.match(self.request_id):
            raise InvalidInput("a request id is 1-64 letters, digits, '.', '_' or '-'")


class Fields(TypedDict, total=False):
    """What an order change's entry may say. ``changes``: attributes moved besides the status (a ship's
    ``DeliveryDate``), summed up in ``Detail`` when none is given; ``system``: a change to no order."""

    from_status: str | None
    to_status: str | None
    order_version: int | None
    product_id: str | None
    detail: str | None
    system: bool
    changes: Sequence[Changed]


def _item(actor: Actor, partition: str, **attributes: Any) -> AuditEntry:
    at = datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")  # entries sort as they were made
    sk = keys.audit(at, secrets.token_hex(4))
    return AuditEntry(pk=partition, sk=sk, user=actor.username, at=at, request_id=actor.request_id, **attributes)


def _put(tx: Transaction, item: AuditEntry) -> AuditEntry:
    """Add the entry to ``tx``, conditioned on its key being new."""
    tx.put("audit", item, ShopItem.pk.does_not_exist())
    return item


def entry(actor: Actor, *, action: str, order_id: str | None, **fields: Unpack[Fields]) -> AuditEntry:
    """The audit item of one change to an order (not written: see ``record``)."""
    oid = keys.bare(order_id, keys.ORDER) if order_id is not None else None
    system = fields.pop("system", False)
    if oid is None and not system:
        raise InvalidInput("the audit entry of an order change names the order")
    changes = fields.pop("changes", ())
    if changes and fields.get("detail") is None:
        fields["detail"] = _summary(changes, "", None)
    partition = keys.SYSTEM_AUDIT if system or oid is None else keys.order(oid)
    return _item(actor, partition, action=action, order_id=oid, changes=_stored(changes), **fields)


def record(
    tx: Transaction, actor: Actor | None, *, action: str, order_id: str | None, **fields: Unpack[Fields]
) -> AuditEntry | None:
    """Add the audit entry of a change to ``tx`` (none without an actor: seeding is no staff change)."""
    return None if actor is None else _put(tx, entry(actor, action=action, order_id=order_id, **fields))


@dataclass(frozen=True)
class Changed:
    """One edited attribute's path (``Address.City``), its text before and after (None: absent)."""

    attribute: str
    before: str | None
    after: str | None


def _stored(changes: Sequence[Changed]) -> list[AttributeChange] | None:
    """``Changes`` as stored: absent (not an empty list) when there are none, as on entries written before."""
    return [AttributeChange(attribute=c.attribute, before=c.before, after=c.after) for c in changes] or None


def _shown(value: str | None) -> str:
    return "-" if value is None else value


_DETAIL = "Detail."  # a product's name and description are inside its ``Detail`` map
_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")  # "ZipCode": "Zip" "Code"


def attribute_words(attribute: str) -> str:
    """An edited attribute as staff read it: ``Detail.Name`` is "Name", ``Address.ZipCode`` "Address zip code"."""
    path = attribute.removeprefix(_DETAIL)
    words = " ".join(_WORD_START.sub(" ", part) for part in path.split("."))
    return words[:1] + words[1:].lower()


def _summary(changes: Sequence[Changed], prefix: str, reason: str | None) -> str:
    parts = [f"{attribute_words(c.attribute)}: {_shown(c.before)} -> {_shown(c.after)}" for c in changes]
    text = prefix + "; ".join(parts) + (f" ({reason})" if reason else "")
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "\u2026"


def record_edit(
    tx: Transaction,
    actor: Actor,
    *,
    action: str,
    kind: str,
    partition: str,
    entity_id: str,
    changes: Sequence[Changed],
    warehouse_id: str | None = None,
    reason: str | None = None,
) -> AuditEntry:
    """Add the audit entry of an entity edit to ``tx``, in the entity's partition, summed up in ``Detail``; ``kind``
    is an editable entity's (``shop.snapshots``)."""
    if not changes:
        raise InvalidInput("an edit that changes nothing is not recorded")
    item = _item(
        actor,
        partition,
        action=action,
        product_id=entity_id if kind in ("product", "stock") else None,
        detail=_summary(changes, f"warehouse {warehouse_id}: " if warehouse_id else "", reason),
        entity_kind=kind,
        entity_id=entity_id,
        warehouse_id=warehouse_id,
        reason=reason,
        changes=_stored(changes),
    )
    return _put(tx, item)


def record_about(tx: Transaction, actor: Actor, *, action: str, partition: str, detail: str) -> AuditEntry:
    """Add the audit entry of a change about an entity that edits none of its attributes (a note on a customer)."""
    return _put(tx, _item(actor, partition, action=action, detail=detail[:MAX_DETAIL]))
