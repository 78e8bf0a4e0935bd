"""Domain errors: what callers (pages, commands) see instead of botocore's."""

from __future__ import annotations


class ShopError(Exception):
    """Base of every domain error; ``str()`` is a message fit to show a user."""


class InvalidInput(ShopError, ValueError):
    """The request itself is wrong (bad id, quantity, amount ...); nothing was written."""


class NotFound(ShopError, LookupError):
    def __init__(self, entity: str, entity_id: str) -> None:
        super().__init__(f"no {entity} with id {entity_id!r}")
        self.entity = entity
        self.entity_id = entity_id


class OrderConflict(ShopError):
    """The order's current state does not allow the action (or changed while we acted)."""

    def __init__(self, order_id: str, status: str | None, message: str) -> None:
        super().__init__(message)
        self.order_id = order_id
        self.status = status


class OutOfStock(ShopError):
    def __init__(self, product_id: str, requested: int, available: int) -> None:
        super().__init__(
            f"product {product_id}: {requested} requested, no warehouse holds that many (most in one: {available})"
        )
        self.product_id = product_id
        self.requested = requested
        self.available = available


class Busy(ShopError):
    """Too much contention on the same items; nothing was written, trying again later may succeed."""


class FavouriteConflict(ShopError):
    """Marking or un-marking a favourite failed on the data's current state; nothing was written.
    ``reason``: ``already-favourite``, ``not-favourite``, ``other-order`` or ``order-item-changed``."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason
