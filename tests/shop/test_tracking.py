"""A shipment's carrier and tracking number as staff type them: trimmed, optional, at most 100 printable
characters."""

from __future__ import annotations

import pytest

from shop import tracking
from shop.errors import InvalidInput


@pytest.mark.parametrize(
    ("given", "kept"),
    [(None, None), ("", None), ("   ", None), ("  DHL Express ", "DHL Express"), ("x" * 100, "x" * 100)],
)
def test_a_reference_is_trimmed_and_empty_means_none(given: str | None, kept: str | None) -> None:
    assert tracking.reference(given, what="carrier") == kept


def test_the_limit_counts_characters_after_trimming() -> None:
    assert tracking.reference(" " + "x" * 100 + " ", what="carrier") == "x" * 100


@pytest.mark.parametrize("bad", ["x" * 101, "JD01\n4600", "JD01\x004600", "tab\there"])
def test_too_long_or_unprintable_is_refused_with_what_it_is(bad: str) -> None:
    with pytest.raises(InvalidInput, match="tracking number"):
        tracking.reference(bad, what="tracking number")
