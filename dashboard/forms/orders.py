"""The order page's actions (ship, cancel, deliver): the version staff saw, a cancel's reason, a shipment's
carrier and tracking number. Shared with the bulk actions (``dashboard.forms.bulk``), which ask the same."""

from __future__ import annotations

from typing import Any

from django import forms

from shop import cancel_reasons, tracking
from shop.errors import InvalidInput


def reference(value: str | None, what: str) -> str | None:
    """``shop.tracking``'s check of a carrier or tracking number, as a form error."""
    try:
        return tracking.reference(value, what=what)
    except InvalidInput as exc:
        raise forms.ValidationError(str(exc)) from exc


class TrackingField(forms.CharField):
    """An optional carrier or tracking number: trimmed and length-checked as any text field (the browser is told
    the limit too), then checked by ``shop.tracking``; empty is None."""

    def __init__(self, label: str) -> None:
        super().__init__(required=False, max_length=tracking.MAX_LENGTH, label=label)

    def clean(self, value: object) -> str | None:
        return reference(super().clean(value), str(self.label).lower())


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


CANCEL_REASON_CHOICES = [("", "Choose a reason"), *cancel_reasons.REASONS.items()]


class CancelReasonFields(forms.Form):
    """Why staff cancel: one of ``shop.cancel_reasons.REASONS``; ``other`` with a text. Cleaned into ``reason``, the
    words the cancel keeps (None when none was given)."""

    reason = forms.ChoiceField(required=False, choices=CANCEL_REASON_CHOICES, label="Reason")
    reason_text = forms.CharField(
        required=False, max_length=cancel_reasons.MAX_TEXT, label="Other reason", help_text="when the reason is other"
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        try:
            cleaned["reason"] = cancel_reasons.words(
                _text(cleaned.get("reason")), _text(cleaned.pop("reason_text", None))
            )
        except InvalidInput as exc:
            self.add_error("reason_text" if cleaned.get("reason") == cancel_reasons.OTHER else "reason", str(exc))
        return cleaned


class ActionForm(forms.Form):
    """Ship / cancel / deliver: the version the user saw (optimistic locking; a changed order is a 409). The
    cleaned fields are the action's keyword arguments."""

    expected_version = forms.IntegerField(required=False, min_value=0, label="expected version")


class CancelForm(ActionForm, CancelReasonFields):
    """Cancel: the version seen and the reason."""


class ShipForm(ActionForm):
    """Ship: also the carrier and the tracking number put on the shipments (both optional)."""

    carrier = TrackingField("Carrier")
    tracking_number = TrackingField("Tracking number")
