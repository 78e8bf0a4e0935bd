"""The countries an address may name: ISO 3166, stored as the shop stores them, by English name (``"Sweden"``). A
stored value that is no such name (``"Sweden "``, a code) stays on offer, so a form can post it back unchanged."""

from __future__ import annotations

from django.utils import translation
from django_countries import countries

NONE = ("", "—")


def english_names() -> list[str]:
    """Every ISO 3166 country's English name, in django-countries' order (by name)."""
    with translation.override("en"):
        return [str(country.name) for country in countries]


def country_choices(stored: str | None) -> list[tuple[str, str]]:
    """The select's choices: none, the stored value when it is no country's name (marked so), every country."""
    names = english_names()
    kept = [(stored, f"{stored} (as stored)")] if stored and stored not in names else []
    return [NONE, *kept, *((name, name) for name in names)]
