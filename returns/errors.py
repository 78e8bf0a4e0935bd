"""The returns service's domain errors, beside the shop's (``shop.errors``): a page answers each with its class's
``http_status``, a command prints its message."""

from __future__ import annotations

from decimal import Decimal

from shop.errors import InvalidInput, ShopError


class ReturnConflict(ShopError):
    """The return's status does not allow the action (or changed while we acted); nothing was written (409)."""

    def __init__(self, return_id: str, status: str | None, message: str) -> None:
        super().__init__(message)
        self.return_id = return_id
        self.status = status


class RefundTooLarge(InvalidInput):
    """A refund above what remains refundable of the order (what it paid, less what was refunded); nothing was
    written (400)."""

    def __init__(self, order_id: str, amount: Decimal, remaining: Decimal) -> None:
        super().__init__(
            f"order {order_id} has {max(remaining, Decimal(0)):.2f} left to refund; {amount:.2f} is more than that"
        )


class RefundAboveReturned(InvalidInput):
    """A refund above what came back of the return (its received lines at the prices paid, less what it was
    refunded), with no override; nothing was written (400: the form's ``amount`` field)."""

    def __init__(self, return_id: str, amount: Decimal, bound: Decimal) -> None:
        super().__init__(
            f"return {return_id} is worth {max(bound, Decimal(0)):.2f} as received; {amount:.2f} is more than that "
            "(an override with its reason may exceed it)"
        )


class UnknownWarehouse(InvalidInput):
    """A return received into a warehouse the shop does not have (400: the form's ``warehouse`` field)."""

    def __init__(self, warehouse_id: str) -> None:
        super().__init__(f"there is no warehouse {warehouse_id}")
