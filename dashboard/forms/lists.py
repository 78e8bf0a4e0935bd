"""The query parameters every list page takes (``cursor``, ``limit``, ``format``), the filter form they build on,
and how a form's errors read as one line (a bad parameter is a 400 with that line)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from django import forms

from dynamo.paging import MAX_PAGE  # the most rows a page may ask for: the most one call reads
from shop.errors import InvalidInput
from shop.timestamps import QUERY_NAMES, DateRange, InvalidDate

DEFAULT_PAGE = 50
FORMATS = ("", "html", "csv")  # "" and "html": the page itself


def error_lines(form: forms.Form) -> list[str]:
    """Every error as one readable line, its field's label first: ``from: Enter a valid date.``"""
    lines = []
    for name, errors in form.errors.items():
        label = "" if name == "__all__" else f"{form.fields[name].label or name}: "
        lines += [f"{label}{error}" for error in errors]
    return lines


def first_error(form: forms.Form) -> str:
    return next(iter(error_lines(form)), "invalid parameters")


def choice_field(
    values: Sequence[str], noun: str, *, labels: Sequence[str] = (), default: str = "", **more: Any
) -> forms.TypedChoiceField:
    """An optional choice of ``values``, empty meaning ``default``; anything else is a 400 naming the choices."""
    named = " or ".join(v for v in values if v)
    return forms.TypedChoiceField(
        required=False,
        choices=list(zip(values, labels or values, strict=True)),
        empty_value=default,
        error_messages={"invalid_choice": f"%(value)r is not a {noun}; use {named}"},
        **more,
    )


class CheckedField(forms.CharField):
    """Text checked by the service's own rule ``check``, its words the error's; an empty optional one is left be."""

    def __init__(self, check: Callable[[str], Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check

    def clean(self, value: Any) -> Any:
        text = super().clean(value)
        try:
            return self.check(text) if text or self.required else text
        except InvalidInput as exc:
            raise forms.ValidationError(str(exc)) from exc


class MarkedForm(forms.Form):
    """A form a page shows: its labels bare (no colon), its required fields marked."""

    label_suffix = ""
    required_css_class = "required"


class FilterForm(MarkedForm):
    """Query parameters a page shows as its filter, each error beside its control."""

    def error_lines(self) -> list[str]:
        return error_lines(self)


class FormatForm(forms.Form):
    format = choice_field(FORMATS, "format")

    def wants(self, name: str) -> bool:
        return self.cleaned_data.get("format") == name

    @property
    def wants_csv(self) -> bool:
        return self.wants("csv")


class ListForm(FilterForm, FormatForm):
    """Parameters shared by the list pages: ``cursor`` (opaque, from "load more"), ``limit``, ``format``."""

    cursor = forms.CharField(required=False, max_length=8192)
    limit = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE)

    def clean_limit(self) -> int:
        return self.cleaned_data.get("limit") or DEFAULT_PAGE


def day_field(label: str) -> forms.DateField:
    return forms.DateField(
        required=False,
        input_formats=["%Y-%m-%d"],
        label=label,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )


class RangeFields(FilterForm):
    """``from`` / ``to`` as the fields ``start`` and ``end``, checked by ``shop.timestamps.DateRange``."""

    start = day_field("from")
    end = day_field("to")

    def add_prefix(self, field_name: str) -> str:
        return super().add_prefix(QUERY_NAMES.get(field_name, field_name))

    def date_range(self, start: date | None, end: date | None) -> DateRange:
        """The range, or an empty one with the error beside ``from``."""
        try:
            return DateRange(start, end)
        except InvalidDate as exc:
            self.add_error("start", str(exc))
            return DateRange()
