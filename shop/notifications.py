"""The customer's notifications, as a transactional outbox: a ``Notification`` written in the transaction of the
action it tells of (so one exists exactly when its action does), then sent by ``send_notifications`` (see
docs/staff-work.md, "Customer notifications").

Sending is three conditional steps (claim a lease, send, mark sent if the claim is still ours), so a crash loses
none and, in the ordinary case, sends none twice: a sender killed between sending and marking leaves the claim to
expire, and that one message is sent again.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from enum import StrEnum

from pynamodb.exceptions import UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from dynamo.backoff import full_jitter
from dynamo.paging import query_page
from dynamo.transactions import Transaction
from shop import keys
from shop.errors import NotFound, OrderConflict
from shop.models import Notification, ShopItem
from shop.order_reads import order_collection
from shop.timestamps import format_ts, now

LEASE = timedelta(minutes=2)  # how long a claim holds before another sender may take it over
MAX_ATTEMPTS = 6
RETRY_BASE_S, RETRY_CAP_S = 30.0, 3600.0
MAX_ERROR = 300


class Kind(StrEnum):
    CREATED = "created"
    SHIPPED = "shipped"
    REFUNDED = "refunded"
    EDITED = "edited"


def add(tx: Transaction, order_id: str, kind: Kind, *, detail: str | None = None, at: datetime | None = None) -> None:
    """Put a new notification of ``kind`` about ``order_id`` into the action's own ``tx``, due at once."""
    when, notification_id = at or now(), secrets.token_hex(6)
    item = Notification(
        pk=keys.order(order_id),
        sk=keys.notification(when, notification_id),
        kind=kind.value,
        at=when,
        detail=detail,
        outbox=keys.outbox(notification_id),
        next_attempt=format_ts(when),
        attempts=0,
    )
    tx.put(f"notify:{kind.value}", item, ShopItem.pk.does_not_exist())


def due(*, at: datetime, limit: int = 25) -> list[Notification]:
    """Unsent notifications whose next attempt has come, oldest first: one Query of each Outbox-index shard."""
    condition = Notification.next_attempt <= format_ts(at)
    found = [
        item
        for outbox in keys.outboxes()
        for item in query_page(
            Notification, outbox, limit=limit, index_name="Outbox-index", range_key_condition=condition
        ).items
    ]
    return sorted(found, key=lambda item: item.next_attempt or "")[:limit]


def _update(item: Notification, actions: list[Action], condition: Condition) -> bool:
    """One conditional UpdateItem; False when another sender got there first."""
    try:
        item.update(actions=actions, condition=condition)
    except UpdateError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def claim(item: Notification, *, at: datetime) -> str | None:
    """Hold ``item`` for ``LEASE``: the claim's token, or None when another sender moved it first."""
    token = secrets.token_hex(8)
    held = _update(
        item,
        [Notification.next_attempt.set(format_ts(at + LEASE)), Notification.claim.set(token)],
        (Notification.next_attempt == item.next_attempt) & Notification.outbox.exists(),
    )
    return token if held else None


def mark_sent(item: Notification, token: str, *, at: datetime) -> bool:
    return _update(
        item,
        [
            Notification.sent.set(at),
            Notification.outbox.remove(),
            Notification.next_attempt.remove(),
            Notification.claim.remove(),
            Notification.error.remove(),
        ],
        Notification.claim == token,
    )


def mark_failed(item: Notification, token: str, error: str, *, at: datetime) -> bool:
    """Try again after a backoff, or give up after ``MAX_ATTEMPTS``."""
    attempts = int(item.attempts or 0) + 1
    text = error[:MAX_ERROR]
    actions: list[Action]
    if attempts >= MAX_ATTEMPTS:
        actions = [Notification.given_up.set(at), Notification.outbox.remove(), Notification.next_attempt.remove()]
    else:
        wait = timedelta(seconds=max(1.0, full_jitter(attempts, base=RETRY_BASE_S, cap=RETRY_CAP_S)))
        actions = [Notification.next_attempt.set(format_ts(at + wait))]
    actions += [Notification.attempts.set(attempts), Notification.error.set(text), Notification.claim.remove()]
    return _update(item, actions, Notification.claim == token)


Send = Callable[[Notification], None]
"""Sends one notification; raises when it could not (the sender retries it)."""


def send_due(send: Send, *, at: datetime | None = None, limit: int = 25) -> tuple[int, int]:
    """Claim, send and mark each due notification: (sent, failed)."""
    sent = failed = 0
    for item in due(at=at or now(), limit=limit):
        token = claim(item, at=at or now())
        if token is None:
            continue
        try:
            send(item)
        except Exception as exc:
            failed += mark_failed(item, token, f"{type(exc).__name__}: {exc}", at=at or now())
            continue
        sent += mark_sent(item, token, at=at or now())
    return sent, failed


def send_again(*, order_id: str, notification_id: str) -> Notification:
    """Put a given-up notification back in the outbox, due now; OrderConflict when it is not given up."""
    oid = keys.bare(order_id, keys.ORDER)
    found = next((n for n in order_collection(oid).notifications if n.notification_id == notification_id), None)
    if found is None:
        raise NotFound("notification", notification_id)
    again = _update(
        found,
        [
            Notification.outbox.set(keys.outbox(found.notification_id)),
            Notification.next_attempt.set(format_ts(now())),
            Notification.attempts.set(0),
            Notification.given_up.remove(),
        ],
        Notification.given_up.exists(),
    )
    if not again:
        raise OrderConflict(oid, None, f"notification {notification_id} is not given up: it is sent or still trying")
    return found
