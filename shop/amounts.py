"""Amounts of money as staff type them: digits with at most two decimals after a point, no sign, as a price is
shown. ``Decimal`` reads far more than a person means by a price: ``1e3`` is a thousand, and so is ``1_000``.
"""

from __future__ import annotations

import re
from decimal import Decimal

from shop.errors import InvalidInput

PLACES = 2
PLAIN_DECIMAL = re.compile(r"-?\d+(?:\.\d+)?")
_AMOUNT = re.compile(rf"\d{{1,12}}(?:\.\d{{1,{PLACES}}})?")


def plain_amount(text: str) -> Decimal:
    """``text`` (surrounding spaces ignored) as a Decimal; InvalidInput unless it is digits with at most two
    decimals after a point (no sign, exponent, comma or spaces inside)."""
    typed = text.strip()
    if not _AMOUNT.fullmatch(typed):
        raise InvalidInput(f"{typed[:30]!r} is not an amount: digits with at most {PLACES} decimals, such as 12.50")
    return Decimal(typed)
