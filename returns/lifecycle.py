"""A return's state machine (``shop.lifecycle``), with each step's time on the return. Making a return (asked for,
or created by staff as approved: ``returns.services``) starts it."""

from __future__ import annotations

from returns.errors import ReturnConflict
from returns.keys import ReturnStatus as S
from shop.lifecycle import Lifecycle, Step

RETURN = Lifecycle(
    "return",
    ReturnConflict,
    [
        Step("approve", (S.REQUESTED,), S.APPROVED, "approved", "handle_returns", "return-approve", "approved"),
        Step("reject", (S.REQUESTED,), S.REJECTED, "rejected", "handle_returns", "return-reject", "rejected"),
        Step("receive", (S.APPROVED,), S.RECEIVED, "received", "handle_returns", "return-receive", "received"),
        Step("refund", (S.APPROVED, S.RECEIVED), S.REFUNDED, "refunded", "handle_returns", "refund", "refunded"),
    ],
)
OPEN_STATUSES = tuple(s for s in RETURN.states if s not in RETURN.closing_states)  # what awaits staff: the queue
