"""The returns pages' forms: the queue's parameters and the four actions' fields. Each field is checked by the
returns service's own rule (``returns.services``, ``returns.refunds``), so a page and any other caller refuse the
same input with the same words."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TypeVar

from django import forms

from adminview.reads.returns_reads import OPEN  # the queue's default: every return awaiting staff
from dashboard.forms import ListForm
from returns import refunds, services
from returns.keys import ReturnStatus
from shop import keys
from shop.errors import InvalidInput

QUEUE_STATUSES = (OPEN, *(s.value for s in ReturnStatus))
T = TypeVar("T")


def _checked(check: Callable[[object], T], value: object) -> T:
    try:
        return check(value)
    except InvalidInput as exc:
        raise forms.ValidationError(str(exc)) from exc


class ReturnsQueueForm(ListForm):
    """``/returns/?status=open|REQUESTED|...`` (default ``open``) and the list parameters."""

    status = forms.ChoiceField(
        required=False,
        choices=[(s, s) for s in QUEUE_STATUSES],
        error_messages={"invalid_choice": f"%(value)r is not a status; use one of {', '.join(QUEUE_STATUSES)}"},
    )

    def clean_status(self) -> str:
        return self.cleaned_data.get("status") or OPEN


class ActionForm(forms.Form):
    label_suffix = ""
    required_css_class = "required"


class RejectForm(ActionForm):
    reason = forms.CharField(max_length=services.MAX_REASON, label="Reason")

    def clean_reason(self) -> str:
        return _checked(lambda v: services.text_of(v, what="reason"), self.cleaned_data["reason"])


class ReceiveForm(ActionForm):
    warehouse = forms.CharField(max_length=64, label="Warehouse", help_text="The id of the warehouse it arrived at.")

    def clean_warehouse(self) -> str:
        return _checked(
            lambda v: keys.bare(str(v), keys.WAREHOUSE, what="warehouse id"), self.cleaned_data["warehouse"]
        )


class RefundForm(ActionForm):
    amount = forms.CharField(max_length=20, label="Amount", help_text="At most what remains refundable.")
    reference = forms.CharField(
        max_length=refunds.MAX_REFERENCE, label="Provider's reference", help_text="The payment provider's refund id."
    )

    def clean_amount(self) -> Decimal:
        return _checked(refunds.amount_of, self.cleaned_data["amount"])

    def clean_reference(self) -> str:
        return _checked(refunds.reference_of, self.cleaned_data["reference"])
