"""Why staff cancel an order, as shops list it: the value a form sends and the words kept on the order
(``CancelReason``) and in its audit entry."""

from __future__ import annotations

from shop.errors import InvalidInput

REASONS = {
    "customer": "customer request",
    "stock": "out of stock",
    "fraud": "suspected fraud",
    "payment": "payment failed",
    "other": "other",
}
OTHER = "other"
MAX_TEXT = 200


def words(reason: str | None, text: str | None = None) -> str | None:
    """The words kept for ``reason`` (``other``: with what staff typed), None without a reason; InvalidInput for an
    unknown reason, or ``other`` without a text."""
    if not reason:
        return None
    if reason not in REASONS:
        raise InvalidInput(f"unknown cancel reason {reason[:30]!r}: one of {', '.join(REASONS)}")
    if reason != OTHER:
        return REASONS[reason]
    typed = " ".join((text or "").split())
    if not typed or len(typed) > MAX_TEXT:
        raise InvalidInput(f"a cancel for another reason says which, in 1 to {MAX_TEXT} characters")
    return f"{OTHER}: {typed}"
