"""How every page shows a moment and an amount: one format each, so staff read the same thing everywhere. The
shop stores UTC without a zone suffix (``shop.timestamps``), and some values reach a page as that text (an audit
entry's ``At``): both are read as UTC and shown in the staff's time zone (``SHOP_ADMIN_TIME_ZONE``)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from functools import cache

from babel import Locale
from babel.numbers import format_currency
from django.conf import settings
from django.utils import timezone

from shop.timestamps import InvalidDate, parse_ts

CENT = Decimal("0.01")
MINUTE, HOUR, DAY = 60, 3600, 86400


def moment(value: object) -> datetime | None:
    """An aware datetime for a stored moment (a naive datetime or the shop's text is UTC), else None."""
    if isinstance(value, str) and value:
        try:
            value = parse_ts(value)
        except InvalidDate:
            return None
    if not isinstance(value, datetime):
        return None
    return value.replace(tzinfo=UTC) if timezone.is_naive(value) else value


def when(value: object) -> str:
    """``2026-11-25 20:09:34 UTC`` in the staff's time zone; a day as ``2026-11-25``; other text as it is."""
    found = moment(value)
    if found is not None:  # the zone's own name for the moment: CET or CEST, either side of the repeated hour
        local = timezone.localtime(found)
        return f"{local.isoformat(' ', 'seconds')[:19]} {local.tzname()}"
    if isinstance(value, date) and not isinstance(value, datetime):
        return value.isoformat()
    return "" if value is None else str(value)


def amount(value: object) -> Decimal | None:
    """The exact decimal of a stored amount (a Decimal, an int, AWS's decimal string); None when it is none."""
    if value is None or value == "" or isinstance(value, bool | float):
        return None
    try:
        number = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def money(value: object) -> str:
    """``$1,234.50`` in ``SHOP_LOCALE``: at least two decimals, never rounded (an old price's third shows)."""
    number = amount(value)
    if number is None:
        return "" if value is None else str(value)
    return format_currency(
        number, settings.SHOP_CURRENCY, locale=_locale(settings.SHOP_LOCALE), decimal_quantization=False
    )


@cache
def _locale(name: str) -> Locale:
    """Babel's locale parsed once per name: given by name, each amount shown would look its data up again."""
    return Locale.parse(name)


def plain_amount(value: object) -> Decimal | str | None:
    """A CSV cell's amount, read by programs: a Decimal with at least two decimals, no symbol (a number, so the
    CSV's formula guard leaves ``-5.00`` alone); text that is no number as it is."""
    number = amount(value)
    if number is None:
        return None if value is None or value == "" else str(value)
    exponent = number.as_tuple().exponent
    return number.quantize(CENT) if isinstance(exponent, int) and exponent > -2 else number


def waited(value: object, now: datetime | None = None) -> str:
    """How long from a stored moment until ``now``: ``3 d 4 h``, ``5 h 12 min``, ``7 min``, to the unit below the
    largest (a list is read at a glance); a moment ahead (a clock's skew) has waited ``0 min``."""
    start = moment(value)
    if start is None:
        return ""
    until = moment(now) or timezone.now()
    seconds = max(0, int((until - start).total_seconds()))
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes = rest // MINUTE
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"
