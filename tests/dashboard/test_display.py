"""One format for a moment and one for an amount (``dashboard.display``), as the ``when`` and ``money`` filters
show them on every page."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

from django.template import Context, Template
from django.test import override_settings

from dashboard.display import money, plain_amount, waited, when


def test_a_stored_moment_shows_in_the_staff_time_zone_with_its_name() -> None:
    # given a moment as the shop stores it: naive UTC, or its text with or without a fraction
    stored = [
        datetime(2026, 11, 25, 20, 9, 34),
        "2026-11-25T20:09:34.694615",
        datetime(2026, 11, 25, 20, 9, 34, tzinfo=UTC),
    ]
    # then every page shows it the same way, in UTC by default
    assert {when(value) for value in stored} == {"2026-11-25 20:09:34 UTC"}
    # and in the staff's time zone when one is set
    with override_settings(TIME_ZONE="Europe/Stockholm"):
        assert {when(value) for value in stored} == {"2026-11-25 21:09:34 CET"}


def test_nothing_a_day_and_text_that_is_no_moment() -> None:
    assert when(None) == "" and when("") == ""
    assert when(date(2026, 1, 2)) == "2026-01-02"
    assert when("soon") == "soon"


def test_an_amount_has_the_currency_and_two_decimals_at_least() -> None:
    assert [money(v) for v in (Decimal("669.4"), "802.80", "100", 0, Decimal("1234567.5"))] == [
        "$669.40",
        "$802.80",
        "$100.00",
        "$0.00",
        "$1,234,567.50",
    ]
    assert money("1.999") == "$1.999"  # an old price with three decimals is not rounded
    assert money(None) == "" and money("n/a") == "n/a"


@override_settings(SHOP_CURRENCY="SEK", SHOP_LOCALE="sv_SE")
def test_the_currency_and_the_locale_are_settings() -> None:
    assert money(Decimal("669.4")).replace("\xa0", " ") == "669,40 kr"


def test_a_csv_amount_is_a_plain_number_with_two_decimals() -> None:
    shown = [str(plain_amount(v)) for v in ("669.4", Decimal("1E+2"), 3, "1.999", "12.50", "-5")]
    assert shown == ["669.40", "100.00", "3.00", "1.999", "12.50", "-5.00"]
    assert isinstance(plain_amount("-5"), Decimal)  # a number: the CSV's formula guard leaves it alone
    assert plain_amount(None) is None and plain_amount("") is None and plain_amount("n/a") == "n/a"


def test_the_filters_are_the_functions() -> None:
    shown = Template("{% load display %}{{ at|when }} {{ total|money }}").render(
        Context({"at": datetime(2024, 5, 1, 12, 3, 4), "total": Decimal("12.5")})
    )
    assert shown == "2024-05-01 12:03:04 UTC $12.50"


def test_waited_is_days_and_hours_or_hours_and_minutes_or_minutes() -> None:
    now = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    assert waited(datetime(2026, 3, 7, 8, 0), now) == "3 d 4 h"  # a naive stored moment is UTC
    assert waited("2026-03-10T06:48:30", now) == "5 h 11 min"  # the shop's text too
    assert waited(datetime(2026, 3, 10, 11, 53), now) == "7 min"
    assert waited(datetime(2026, 3, 10, 12, 5), now) == "0 min"  # ahead of now: a clock's skew
    assert waited(datetime(2026, 2, 8, 12, 0), now) == "30 d 0 h"
    assert waited(None, now) == "" and waited("soon", now) == ""


def test_waited_is_until_now_by_default_and_a_filter() -> None:
    shown = Template("{% load display %}{{ at|waited }}").render(Context({"at": datetime(2000, 1, 1)}))
    assert shown.endswith(" h") and " d " in shown
