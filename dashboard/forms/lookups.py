"""Forms that find one thing: the top bar's jump box, a payment transaction, one order's consistency, PartiQL."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.core.validators import validate_email

from dashboard.forms.lists import FormatForm, choice_field
from dashboard.partiql import MAX_LENGTH
from shop import keys


class TransactionForm(forms.Form):
    transaction_id = forms.CharField(max_length=200, strip=True, label="transaction id")


JUMP_KINDS = {
    "order": keys.ORDER,
    "customer": keys.CUSTOMER,
    "product": keys.PRODUCT,
    "warehouse": keys.WAREHOUSE,
    "invoice": keys.INVOICE,
    "shipment": keys.SHIPMENT,
}
EMAIL = "email"
SEARCH = "search"  # anything else: a name, a word of a product's name, the start of an email
SEARCHED_KINDS = frozenset({"customer", "product"})  # what the search page finds by name


class JumpForm(forms.Form):
    """The top bar's jump box: text alone (the view works out what it names), or a ``kind`` of ``JUMP_KINDS`` and
    its id, email or text. An "id" that cannot be one (``Ada Lovelace``) is searched for: ``search`` is True."""

    kind = forms.ChoiceField(required=False, choices=[(k, k) for k in [*JUMP_KINDS, EMAIL, SEARCH]])
    id = forms.CharField(max_length=254, strip=True)

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        kind = cleaned["kind"]
        cleaned["search"] = kind in (SEARCH, "")
        cleaned["email"] = _is_email(cleaned["id"])
        if kind == EMAIL and not cleaned["email"]:
            raise forms.ValidationError(f"{cleaned['id']!r} is not an email address")
        if kind in (SEARCH, "", EMAIL):
            return cleaned
        try:
            cleaned["id"] = keys.bare(cleaned["id"], JUMP_KINDS[kind])
        except keys.InvalidId as exc:
            if kind not in SEARCHED_KINDS:
                raise forms.ValidationError(str(exc)) from exc
            cleaned["search"] = True
        return cleaned


def _is_email(text: str) -> bool:
    try:
        validate_email(text)
    except forms.ValidationError:
        return False
    return True


class ConsistencyForm(FormatForm):
    format = choice_field(("", "html", "json"), "format")


TYPES = frozenset({"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"})  # DynamoDB JSON's type tags


class PartiqlForm(forms.Form):
    """The PartiQL box: a statement, its ``?`` parameters in DynamoDB JSON, and the ``NextToken`` of "load more"."""

    statement = forms.CharField(max_length=MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 4, "cols": 80}))
    parameters = forms.CharField(
        required=False,
        max_length=MAX_LENGTH,
        label="parameters (a JSON list in DynamoDB JSON)",
        widget=forms.Textarea(attrs={"rows": 2, "cols": 80, "placeholder": '[{"S": "o#12345"}]'}),
    )
    next_token = forms.CharField(required=False, max_length=MAX_LENGTH, widget=forms.HiddenInput)
    columns = forms.JSONField(required=False, widget=forms.HiddenInput)  # the first page's, for the pages after

    def clean_columns(self) -> list[str]:
        columns = self.cleaned_data["columns"] or []
        if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
            raise forms.ValidationError("columns: a JSON list of attribute names")
        return columns

    def clean_parameters(self) -> list[Any]:
        text = self.cleaned_data["parameters"].strip()
        try:
            values = json.loads(text) if text else []
        except ValueError as exc:
            raise forms.ValidationError(f"parameters: not JSON ({exc})") from exc
        if not isinstance(values, list) or not all(
            isinstance(v, dict) and len(v) == 1 and next(iter(v)) in TYPES for v in values
        ):
            raise forms.ValidationError('parameters: a JSON list of DynamoDB JSON values, such as [{"S": "o#1"}]')
        return values
