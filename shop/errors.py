"""Domain errors: what pages and commands see instead of botocore's, each with the ``http_status`` a page answers."""

from __future__ import annotations

from dataclasses import dataclass

from domain.errors import BAD_INPUT, BUSY, CONFLICT, NOT_FOUND, DomainError


class ShopError(DomainError):
    """Base of every domain error; ``str()`` is a message fit to show a user."""

    http_status = CONFLICT


class InvalidInput(ShopError, ValueError):
    """The request itself is wrong (bad id, quantity, amount, parameter, cursor ...); nothing was written."""

    http_status = BAD_INPUT


class NotFound(ShopError, LookupError):
    http_status = NOT_FOUND

    def __init__(self, entity: str, entity_id: str) -> None:
        super().__init__(f"no {entity} with id {entity_id!r}")


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


class Busy(ShopError):
    """Too much contention on the same items; nothing was written, trying again later may succeed."""

    http_status = BUSY

    @classmethod
    def contended(cls, what: str) -> Busy:
        """``what`` lost its race every time ``dynamo.backoff.RACES`` ran it again."""
        return cls(f"{what}: too many concurrent changes to the same items; nothing was written, try again")


class FavouriteConflict(ShopError):
    """Marking or un-marking a favourite failed; ``reason``: ``already-favourite``, ``not-favourite``,
    ``other-order`` or ``order-item-changed``."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Drift:
    """An attribute an edit form showed that changed before the save: what it saw, what it is (None: absent)."""

    attribute: str
    seen: str | None
    now: str | None


class EditConflict(ShopError):
    """The entity changed after its edit form was rendered; ``drifts`` says what (empty: changed back)."""

    def __init__(self, entity: str, entity_id: str, drifts: list[Drift]) -> None:
        what = ", ".join(d.attribute for d in drifts) or "its version"
        super().__init__(f"{entity} {entity_id} was changed by someone else meanwhile ({what}); nothing was saved")
        self.drifts = drifts


class EmailTaken(ShopError):
    """Another customer holds the address; nothing was written."""

    def __init__(self, email: str, owner: str) -> None:
        super().__init__(f"{email} is already the email of customer {owner}; nothing was saved")
        self.email = email
        self.owner = owner


class NotYours(ShopError):
    """A staff member tried to change what another wrote (a note): only its author may."""

    http_status = 403


def throttled(exc: Exception) -> bool:
    """Whether DynamoDB refused ``exc``'s request for capacity (one of many writes then reports 503)."""
    text = f"{getattr(exc, 'cause_response_code', '')} {exc}"
    return any(word in text for word in ("Throttling", "ProvisionedThroughputExceeded", "RequestLimitExceeded"))
