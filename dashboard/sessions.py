"""Django's signed-cookie sessions, with each cookie's decoded content kept per process until the cookie expires.

Every request decodes its session cookie (base64, an HMAC check, JSON): about 15 µs in a loop, 40-85 µs
inside a request, for the same few cookies again and again, since a staff member's cookie changes only
when the session does (login, logout). A cookie is the signed text of its content and of the time it was signed:
one that decoded once decodes to the same content until that time plus ``SESSION_COOKIE_AGE``. So the content is
kept by the cookie's exact text (signature included) until then, and a kept cookie gives what decoding gives. A
cookie that fails to decode (bad signature, expired, malformed) is never kept and is refused as before.

Each load returns a fresh dict (parsed from the kept JSON): a request that changes its session changes its own
copy, and signs a new cookie as usual.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from django.contrib.sessions.backends import signed_cookies
from django.core import signing

KEEP = 4096  # cookies kept per process; past that the kept ones are dropped and decoded again when next seen
clock: Callable[[], float] = time.time
_kept: dict[str, tuple[float, str]] = {}  # cookie -> (when it expires, its content as JSON)


def forget_sessions() -> None:
    """Drop every kept cookie (each is decoded again when next seen)."""
    _kept.clear()


class SessionStore(signed_cookies.SessionStore):
    def load(self) -> dict[str, Any]:
        cookie = self.session_key
        kept = _kept.get(cookie) if cookie else None
        if kept is not None and clock() <= kept[0]:
            loaded: dict[str, Any] = json.loads(kept[1])
            return loaded
        modified, self.modified = self.modified, False
        content: dict[str, Any] = super().load()
        refused = self.modified  # Django's load starts a new, empty session (marked modified) when it refuses
        self.modified = refused or modified
        if cookie and not refused:
            signed_at = signing.b62_decode(cookie.rsplit(":", 2)[1])  # "content:time signed:signature"
            if len(_kept) >= KEEP:
                _kept.clear()
            _kept[cookie] = (signed_at + self.get_session_cookie_age(), json.dumps(content))
        return content
