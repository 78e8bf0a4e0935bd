"""The search's terms (``adminview.core.schema``), pure: the words a name and an email are found by, a tracking
number as a term, and when a text's words match a name."""

from __future__ import annotations

import pytest

from adminview.core import schema


def test_an_email_falls_into_its_parts_and_keeps_its_whole_for_the_exact_lookup() -> None:
    terms = schema.customer_terms("Grace Hopper", "Grace.Hopper.100116+shop@Example.com")
    assert terms == {"hopper", "100116", "shop", "example", "com", "grace.hopper.100116+shop@example.com"}


def test_a_term_another_term_starts_with_is_found_through_the_longer_terms_entry() -> None:
    assert schema.customer_terms("Ann Anna Gr", "gracie.x@example.com") == {
        "anna",
        "example",
        "com",
        "gracie.x@example.com",
    }
    assert schema.search_partition("gracie") == schema.search_partition("gracie.x@example.com")


def test_an_email_too_long_for_its_entry_keeps_every_part() -> None:
    email = "ada." + "x" * 300 + "@example.com"
    assert "ada" in schema.customer_terms("Ada", email)


def test_parts_shorter_than_two_letters_get_no_entry_and_no_email_adds_nothing() -> None:
    assert schema.customer_terms("Jean Q Public", "j.q@x.io") == {"jean", "public", "io", "j.q@x.io"}
    assert schema.customer_terms("Ada", None) == schema.customer_terms("Ada", "  ") == {"ada"}


def test_a_tracking_number_ignores_case_accents_and_separators() -> None:
    assert schema.tracking_term(" 1z-999 AA10é ") == "1z999aa10e"
    assert schema.order_terms(["1Z 999", None, "1z999", "-", "x"]) == {"1z999"}


@pytest.mark.parametrize(
    ("text", "matched"),
    [
        ("Grace Hopper", True),
        ("grace hop", True),
        ("hopper grace", True),
        ("GRÂCE", True),  # accents and case ignored
        ("hopper.100116", True),  # parts of the email
        ("@example.com", True),
        ("example.com", True),
        ("grace h", True),  # a one-letter word matches too, once another word was looked up
        ("grace lovelace", False),  # every word must match
        ("race", False),  # a word's start, not its middle
        ("hopper.100117", False),
    ],
)
def test_every_word_of_the_text_must_start_a_word_of_the_name_or_a_part_of_the_email(text: str, matched: bool) -> None:
    found = [*schema.words_of("Grace Hopper"), *schema.words_of("grace.hopper.100116@example.com")]
    assert schema.matches(schema.words_of(text), found) is matched
