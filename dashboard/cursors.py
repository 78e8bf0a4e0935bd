"""Opaque, tamper-proof "load more" cursors: a selector's position signed with a salt per page and the page's
scope (e.g. the customer id and date range), so a cursor copied from another page is refused like a tampered one."""

from __future__ import annotations

from typing import Any

from django.core import signing

from shop.errors import InvalidInput

MAX_AGE_SECONDS = 24 * 3600


class BadCursor(InvalidInput):
    """A cursor that was altered, expired or copied from another page (the page answers 400)."""


def encode(position: dict[str, Any] | None, *, salt: str, scope: str = "") -> str | None:
    if position is None:
        return None
    return signing.dumps({"p": position, "s": scope}, salt=f"dashboard.cursor.{salt}", compress=True)


def decode(token: str | None, *, salt: str, scope: str = "") -> dict[str, Any] | None:
    if not token:
        return None
    try:
        payload = signing.loads(token, salt=f"dashboard.cursor.{salt}", max_age=MAX_AGE_SECONDS)
    except signing.SignatureExpired as exc:
        raise BadCursor("this 'load more' link has expired; reload the page") from exc
    except (signing.BadSignature, ValueError, TypeError) as exc:
        raise BadCursor("invalid cursor: it was altered or belongs to another page") from exc
    if not isinstance(payload, dict) or payload.get("s") != scope or not isinstance(payload.get("p"), dict):
        raise BadCursor("invalid cursor: it belongs to another page")
    position: dict[str, Any] = payload["p"]
    return position
