"""Dates as the shop stores them: ``YYYY-MM-DDTHH:MM:SS``, UTC by convention, no zone suffix. Range bounds accept a
date (an end date covers its whole day) or a full timestamp.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime

from shop.errors import InvalidInput

FORMAT = "%Y-%m-%dT%H:%M:%S"
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")
# Sorts after any suffix a timestamp of that second could carry (fractions, "Z"), so an end bound is inclusive.
END_OF_SECOND = "\uffff"


class InvalidDate(InvalidInput):
    """A date or timestamp we cannot read."""


# A range's two ends as every page and pattern names them in a query: the fields are ``start`` and ``end``.
QUERY_NAMES = {"start": "from", "end": "to"}


@dataclass(frozen=True)
class DateRange:
    """UTC days from ``start`` to ``end``, both included (None: open); InvalidDate when it ends before it starts."""

    start: date | None = None
    end: date | None = None

    def __post_init__(self) -> None:
        if self.start is not None and self.end is not None and self.start > self.end:
            raise InvalidDate(f"'from' ({self.start.isoformat()}) is after 'to' ({self.end.isoformat()})")

    def bounds(self, prefix: str = "") -> tuple[str | None, str | None]:
        """Sort keys ``<prefix><date>...`` of these days: ``<end>~`` sorts after every ``<end>T...``."""
        return (
            prefix + self.start.isoformat() if self.start else None,
            prefix + self.end.isoformat() + "~" if self.end else None,
        )


EVERY_DAY = DateRange()  # no bound on either side


def format_ts(value: datetime) -> str:
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.strftime(FORMAT)


def parse_ts(value: str) -> datetime:
    """A stored timestamp, read leniently (zone suffixes and fractions accepted), as naive UTC."""
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise InvalidDate(f"{value!r} is not a timestamp (expected YYYY-MM-DDTHH:MM:SS)") from exc
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def parse_day(value: str, *, what: str = "date") -> date:
    if not isinstance(value, str) or not _DATE_RE.match(value.strip()):
        raise InvalidDate(f"{what} {value!r} is not a date (expected YYYY-MM-DD)")
    try:
        return date.fromisoformat(value.strip())
    except ValueError as exc:
        raise InvalidDate(f"{what} {value!r} is not a real date") from exc


def bound(value: str, *, end: bool, what: str) -> str:
    """One sort-key bound of a date range (an end date covers its whole day); raises InvalidDate."""
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, str) and _DATE_RE.match(text):
        day = parse_day(text, what=what)
        return day.isoformat() + ("T23:59:59" + END_OF_SECOND if end else "T00:00:00")
    if isinstance(text, str) and _TS_RE.match(text):
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError as exc:
            raise InvalidDate(f"{what} {value!r} is not a real date and time") from exc
        return format_ts(parsed) + (END_OF_SECOND if end else "")
    raise InvalidDate(f"{what} {value!r} is not a date (YYYY-MM-DD) or timestamp (YYYY-MM-DDTHH:MM:SS)")


def range_bounds(start: str, end: str) -> tuple[str, str]:
    """Sort-key bounds for BETWEEN, both inclusive; raises InvalidDate (also when start is after end)."""
    low = bound(start, end=False, what="start")
    high = bound(end, end=True, what="end")
    if low > high:
        raise InvalidDate(f"start {start!r} is after end {end!r}")
    return low, high
