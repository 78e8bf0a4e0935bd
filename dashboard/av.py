"""The dashboard's one door to the admin view (``adminview.selectors``, issue 3's contract).

Imported lazily so the dashboard loads (and its shop-table pages work) even where the admin view is not
installed; pages that need it answer 503 then. Tests replace ``_selectors`` with a fake honouring the contract.
"""

from __future__ import annotations

from typing import Any


class AdminViewUnavailable(RuntimeError):
    """``adminview.selectors`` cannot be imported."""


def _selectors() -> Any:
    try:
        from adminview import selectors
    except ImportError as exc:  # pragma: no cover - only before issue 3 is merged
        raise AdminViewUnavailable("the admin view (adminview app) is not installed") from exc
    return selectors


def pending_orders(*, limit: int, after: dict[str, Any] | None) -> Any:
    """AV2: RowsPage[OrderRow], newest first."""
    return _selectors().pending_orders(limit=limit, after=after)


def orders_by_status(*, status: str, limit: int, after: dict[str, Any] | None) -> Any:
    """The status lists (PENDING, SHIPPED, CANCELLED): RowsPage[OrderRow], newest first."""
    return _selectors().orders_by_status(status=status, limit=limit, after=after)


def new_orders_since(*, status: str, newest: str) -> int:
    """The live queue: how many orders of ``status`` arrived after ``newest`` (capped)."""
    return int(_selectors().new_orders_since(status=status, newest=newest))


def activity(*, limit: int, after: dict[str, Any] | None, user: str | None = None, day: str | None = None) -> Any:
    """Staff changes newest first: RowsPage[ActivityRow]."""
    return _selectors().activity(limit=limit, after=after, user=user, day=day)


def customer_orders(*, customer_id: str, limit: int, after: dict[str, Any] | None) -> Any:
    """AV1: RowsPage[OrderRow], newest first."""
    return _selectors().customer_orders(customer_id=customer_id, limit=limit, after=after)


def product_buyers(*, product_id: str, limit: int, after: dict[str, Any] | None) -> Any:
    """AV3 + AV4 (two-phase join): RowsPage[BuyerRow], by customer id."""
    return _selectors().product_buyers(product_id=product_id, limit=limit, after=after)


def order_id_for_transaction(*, transaction_id: str) -> str | None:
    """AV5: the order behind a payment TransactionId, or None."""
    found = _selectors().order_id_for_transaction(transaction_id=transaction_id)
    return None if found is None else str(found)


def customer_id_for_email(*, email: str) -> str | None:
    """The customer with this email (exact, case-insensitive; GSI5 of the admin view), or None."""
    found = _selectors().customer_id_for_email(email=email)
    return None if found is None else str(found)
