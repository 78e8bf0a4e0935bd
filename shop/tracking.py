"""A shipment's carrier and tracking number as staff type them: optional free text (any carrier), trimmed, at most
``MAX_LENGTH`` characters and printable (they go on a label and into a tracking URL, where a control character only
means a paste gone wrong). Empty is "not given".
"""

from __future__ import annotations

from shop.errors import InvalidInput

MAX_LENGTH = 100


def reference(value: str | None, *, what: str) -> str | None:
    """``value`` trimmed (None when empty); InvalidInput when it is longer than ``MAX_LENGTH`` or not printable."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"a {what} is text")
    text = value.strip()
    if len(text) > MAX_LENGTH:
        raise InvalidInput(f"a {what} is at most {MAX_LENGTH} characters (this one has {len(text)})")
    if not text.isprintable():
        raise InvalidInput(f"a {what} holds no line breaks or control characters")
    return text or None
