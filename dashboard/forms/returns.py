"""The returns actions' fields, each checked by the returns service's own rule (``returns.services``,
``returns.refunds``), so a page and any other caller refuse the same input with the same words."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms

from dashboard.forms.lists import CheckedField, MarkedForm
from dashboard.forms.orders import NotifyField
from returns import refunds, services
from returns.keys import ReturnReason
from returns.models import ReturnLine
from shop import keys
from shop.errors import InvalidInput

WAREHOUSE_HELP = "Where a line goes back in stock unless it names its own."


def _warehouse_id(text: str) -> str:
    return keys.bare(text, keys.WAREHOUSE, what="warehouse id")


class ActionFields(MarkedForm):
    """A return action's form: its cleaned fields are the service's arguments (``arguments``)."""

    def arguments(self) -> dict[str, Any]:
        return dict(self.cleaned_data)


class RejectForm(ActionFields):
    reason = CheckedField(lambda v: services.text_of(v, what="reason"), max_length=services.MAX_REASON, label="Reason")


class ReceiveForm(ActionFields):
    """The warehouse and, per line, ``warehouse-<pid>`` (empty: the one above; proposed: where it shipped from),
    ``received-<pid>`` and ``restocked-<pid>`` (empty: all of it)."""

    warehouse = CheckedField(_warehouse_id, max_length=64, label="Warehouse", help_text=WAREHOUSE_HELP)

    def __init__(
        self,
        *args: Any,
        lines: Sequence[ReturnLine] = (),
        warehouses: Sequence[str] = (),
        shipped_from: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lines = list(lines)
        if warehouses:
            self.fields["warehouse"].widget = forms.Select(choices=[(w, w) for w in warehouses])
        for line in self.lines:
            most = line.quantity or 0
            pid = line.product_id
            self.fields[f"warehouse-{pid}"] = CheckedField(
                _warehouse_id,
                max_length=64,
                required=False,
                label=f"Warehouse of {pid}",
                initial=(shipped_from or {}).get(pid, ""),
                widget=forms.Select(choices=[("", "as above"), *((w, w) for w in warehouses)])
                if warehouses
                else forms.TextInput,
            )
            self.fields[f"received-{pid}"] = forms.IntegerField(
                min_value=0, max_value=most, required=False, label=f"Received of {pid}", help_text=f"of {most}"
            )
            self.fields[f"restocked-{pid}"] = forms.IntegerField(
                min_value=0,
                max_value=most,
                required=False,
                label=f"Back in stock of {pid}",
                help_text="the rest is damaged",
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for line in self.lines:
            got, kept = data.get(f"received-{line.product_id}"), data.get(f"restocked-{line.product_id}")
            if kept is not None and kept > (line.quantity or 0 if got is None else got):
                self.add_error(f"restocked-{line.product_id}", "cannot be more than was received")
        return data

    def arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        counts = {
            line.product_id: services.Count(
                data.get(f"received-{line.product_id}"),
                data.get(f"restocked-{line.product_id}"),
                data.get(f"warehouse-{line.product_id}") or None,
            )
            for line in self.lines
        }
        return {"warehouse_id": data["warehouse"], "counts": counts}


class RefundForm(ActionFields):
    amount = CheckedField(
        refunds.amount_of,
        max_length=20,
        label="Amount",
        help_text="At most what came back (the received lines at the prices paid, less what this return was refunded) "
        "and what the order has left. A refund of a return that was not received (the customer keeps it) needs the "
        "override.",
    )
    reference = CheckedField(
        refunds.reference_of,
        max_length=refunds.MAX_REFERENCE,
        label="Provider's reference",
        help_text="The payment provider's refund id.",
    )
    override = forms.ChoiceField(
        choices=[("", "no"), ("yes", "yes")],
        required=False,
        label="Override the bound",
        help_text="Finance and superusers only: refund more than came back.",
    )
    reason = forms.CharField(max_length=services.MAX_REASON, required=False, label="Reason for the override")
    notify = NotifyField()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("override") == "yes":
            try:
                data["reason"] = services.text_of(data.get("reason"), what="reason for the override")
            except InvalidInput as exc:
                self.add_error("reason", str(exc))
        else:
            data["reason"] = None
        return data

    def arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "amount": data["amount"],
            "reference": data["reference"],
            "override": data["reason"],
            "notify": data["notify"],
        }


@dataclass(frozen=True)
class OrderLineToReturn:
    """An order line as the create-return form shows it: what was delivered and what is already in a return."""

    product_id: str
    name: str
    delivered: int
    returned: int

    @property
    def returnable(self) -> int:
        return max(self.delivered - self.returned, 0)


class CreateReturnForm(MarkedForm):
    """Per line of the order: a quantity up to what is returnable, and above 0 a reason (a text for ``OTHER``)."""

    def __init__(self, *args: Any, lines: Sequence[OrderLineToReturn] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lines = list(lines)
        choices = [("", "—")] + [(r.value, r.label) for r in ReturnReason]
        for line in self.lines:
            pid = line.product_id
            self.fields[f"quantity-{pid}"] = forms.IntegerField(
                min_value=0, max_value=line.returnable, required=False, initial=0, label=f"Quantity of {pid}"
            )
            self.fields[f"reason-{pid}"] = forms.ChoiceField(choices=choices, required=False, label=f"Reason for {pid}")
            self.fields[f"reason_text-{pid}"] = forms.CharField(
                max_length=services.MAX_REASON, required=False, label=f"Other reason for {pid}"
            )
        for field in self.fields.values():
            field.widget.attrs["aria-label"] = str(field.label)

    def rows(self) -> list[tuple[OrderLineToReturn, forms.BoundField, forms.BoundField, forms.BoundField]]:
        return [
            (
                line,
                self[f"quantity-{line.product_id}"],
                self[f"reason-{line.product_id}"],
                self[f"reason_text-{line.product_id}"],
            )
            for line in self.lines
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        chosen = 0
        for line in self.lines:
            pid = line.product_id
            quantity = data.get(f"quantity-{pid}")
            if not quantity:
                continue
            chosen += 1
            reason = data.get(f"reason-{pid}")
            if not reason:
                self.add_error(f"reason-{pid}", "choose why it comes back")
            elif reason == ReturnReason.OTHER and not (data.get(f"reason_text-{pid}") or "").strip():
                self.add_error(f"reason_text-{pid}", "say why, for an Other reason")
        if not chosen and not self.errors:
            raise forms.ValidationError("return at least one unit")
        return data

    def return_lines(self) -> list[services.Line]:
        data = self.cleaned_data
        return [
            services.Line(
                line.product_id,
                data[f"quantity-{line.product_id}"],
                data[f"reason-{line.product_id}"],
                (data.get(f"reason_text-{line.product_id}") or "").strip() or None,
            )
            for line in self.lines
            if data.get(f"quantity-{line.product_id}")
        ]
