"""Each domain error's status is declared once (``shop.errors``) and is what pages answer and commands report."""

from __future__ import annotations

import pytest

from dashboard.cursors import BadCursor
from domain.errors import DomainError
from shop import errors, keys, timestamps


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (errors.InvalidInput("bad"), 400),
        (keys.InvalidId("bad id"), 400),
        (timestamps.InvalidDate("bad date"), 400),
        (BadCursor("altered"), 400),
        (errors.NotFound("order", "1"), 404),
        (errors.OrderConflict("1", "SHIPPED", "already shipped"), 409),
        (errors.OutOfStock("2001", 5, 1), 409),
        (errors.FavouriteConflict("already", reason="already-favourite"), 409),
        (errors.Busy("try again"), 503),
    ],
)
def test_domain_error_statuses(error: DomainError, status: int) -> None:
    assert isinstance(error, DomainError) and error.http_status == status


def test_order_conflict_keeps_the_order_status_apart_from_the_http_status() -> None:
    conflict = errors.OrderConflict("1", "SHIPPED", "already shipped")
    assert conflict.status == "SHIPPED" and conflict.http_status == 409
