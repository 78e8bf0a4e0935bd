"""A return's state machine (``shop.lifecycle``): what staff may do to a return in each status, and for each
step the attribute that keeps when it was taken. Making a return (requested by the customer, or created by staff
as approved) is not a step: it starts the machine (``returns.services``)."""

from __future__ import annotations

from returns.errors import ReturnConflict
from returns.keys import ReturnStatus
from shop.lifecycle import Lifecycle, Step

S = ReturnStatus
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
# Returns that await staff: the queue's default (``open``) lists these.
OPEN_STATUSES = tuple(s for s in RETURN.states if s not in RETURN.closing_states)
