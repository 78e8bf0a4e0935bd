"""The order page's actions (ship, cancel, deliver) and the payments and refunds staff make; shared with the bulk
actions (``dashboard.forms.bulk``), which ask the same."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms

from dashboard import carriers
from dashboard.forms.lists import CheckedField
from shop import cancel_reasons, payments, tracking
from shop.errors import InvalidInput


def reference(value: str | None, what: str) -> str | None:
    try:
        return tracking.reference(value, what=what)
    except InvalidInput as exc:
        raise forms.ValidationError(str(exc)) from exc


class TrackingField(forms.CharField):
    """An optional carrier or tracking number, checked by ``shop.tracking``; empty is None."""

    def __init__(self, label: str) -> None:
        super().__init__(required=False, max_length=tracking.MAX_LENGTH, label=label)

    def clean(self, value: object) -> str | None:
        return reference(super().clean(value), str(self.label).lower())


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


CANCEL_REASON_CHOICES = [("", "Choose a reason"), *cancel_reasons.REASONS.items()]


class CancelReasonFields(forms.Form):
    """Why staff cancel: one of ``shop.cancel_reasons.REASONS``, ``other`` with a text; cleaned into ``reason``."""

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
    """The version the user saw (a changed order is a 409); the cleaned fields are the action's arguments."""

    expected_version = forms.IntegerField(required=False, min_value=0, label="expected version")


class CancelForm(ActionForm, CancelReasonFields):
    """Cancel: the version seen and the reason."""


def carrier_choices() -> list[tuple[str, str]]:
    return [("", "Choose a carrier"), *((name, name) for name in carriers.carriers()), (carriers.OTHER, "Other")]


class CarrierFields(forms.Form):
    """A listed carrier, or "other" named in ``carrier_other``; free text posted as ``carrier`` is still taken."""

    carrier = TrackingField("Carrier")
    carrier_other = TrackingField("Other carrier")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["carrier"].widget = forms.Select(choices=carrier_choices())
        self.fields["carrier_other"].help_text = "when the carrier is other"

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        carrier, other = cleaned.get("carrier"), cleaned.pop("carrier_other", None)
        if carrier == carriers.OTHER:
            if not other:
                self.add_error("carrier_other", "name the carrier")
            cleaned["carrier"] = other
        elif carrier:
            cleaned["carrier"] = carriers.listed_name(carrier) or carrier
        return cleaned


# An order shipped from several warehouses takes a tracking number per warehouse: ``tracking_number-<warehouse id>``.
TRACKING_FROM = "tracking_number-"
# Units to ship now of each line: ``quantity-<product id>``.
QUANTITY_OF = "quantity-"


class NotifyField(forms.BooleanField):
    """ "Notify the customer", ticked on the form; absent from a POST, nobody is told."""

    def __init__(self) -> None:
        super().__init__(required=False, initial=True, label="Notify the customer")


class ShipForm(ActionForm, CarrierFields):
    """Ship: the carrier, one tracking number for all shipments or one per warehouse, the units of each line."""

    tracking_number = TrackingField("Tracking number")
    notify = NotifyField()

    def __init__(self, data: Any = None, *, warehouses: Sequence[str] = (), left: dict[str, int] | None = None) -> None:
        super().__init__(data)
        posted = [k.removeprefix(TRACKING_FROM) for k in (data or {}) if k.startswith(TRACKING_FROM)]
        self.warehouses = list(dict.fromkeys([*warehouses, *posted]))
        for wid in self.warehouses:
            self.fields[TRACKING_FROM + wid] = TrackingField(f"Tracking number from warehouse {wid}")
        # the lines left to ship (shown with what is left), or those posted (``shop.orders`` checks them)
        lines = dict(left or {}) | {
            k.removeprefix(QUANTITY_OF): None for k in (data or {}) if k.startswith(QUANTITY_OF)
        }
        self.lines = [pid for pid in lines if lines[pid] != 0]
        for pid in self.lines:
            self.fields[QUANTITY_OF + pid] = forms.IntegerField(
                required=False, min_value=0, initial=lines[pid], label=f"Units of {pid} to ship"
            )

    def quantity_fields(self) -> list[forms.BoundField]:
        """Units to ship of each line, offered when the order holds more than one unit."""
        return [self[QUANTITY_OF + pid] for pid in self.lines]

    def tracking_fields(self) -> list[forms.BoundField]:
        """What the form shows for tracking: a field per warehouse when there are several, else the one number."""
        if len(self.warehouses) > 1:
            return [self[TRACKING_FROM + wid] for wid in self.warehouses]
        return [self["tracking_number"]]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        cleaned["warehouse_tracking"] = {
            wid: cleaned.pop(TRACKING_FROM + wid, None) for wid in self.warehouses if TRACKING_FROM + wid in cleaned
        }
        given = {pid: cleaned.pop(QUANTITY_OF + pid, None) for pid in self.lines}
        cleaned["quantities"] = {pid: n or 0 for pid, n in given.items()} if self.lines else None
        return cleaned


def amount_field(what: str) -> CheckedField:
    """An amount of money as staff type it (``shop.payments.amount_of``: plain digits, at most two decimals)."""
    return CheckedField(lambda text: payments.amount_of(text, what=what), max_length=20, label="Amount")


class PaymentForm(forms.Form):
    amount = amount_field("payment")
    reference = CheckedField(
        lambda text: tracking.reference(text, what="reference"), max_length=tracking.MAX_LENGTH, label="Reference"
    )


class OrderRefundForm(PaymentForm):
    """A refund from the order page: also why (required, kept in its audit entry)."""

    amount = amount_field("refund")
    reason = forms.CharField(max_length=500, label="Reason")
    notify = NotifyField()
