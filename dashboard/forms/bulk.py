"""A status list's bulk actions: the selected orders, the action, a carrier for all and a tracking number per
order, the cancel's reason and its confirmation."""

from __future__ import annotations

from django import forms
from django.http import QueryDict

from adminview.core.schema import LISTED_STATUSES
from dashboard.forms.orders import CancelReasonFields, TrackingField, reference
from shop import keys

BULK_ACTIONS = ("ship", "cancel", "deliver")
MAX_BULK = 200
# A pending list's row carries its order's tracking number as ``tracking_number-<order id>`` (read for the
# selected orders of a bulk ship only).
TRACKING_NUMBER_OF = "tracking_number-"


class BulkForm(CancelReasonFields):
    """The selected orders of a status list and what to do with them; shipping takes a carrier for all of them
    and, per order, an optional tracking number; ``confirm=yes`` once staff have seen what an action that cannot be
    undone (cancelling) will change."""

    action = forms.ChoiceField(choices=[(a, a) for a in BULK_ACTIONS])
    order = forms.CharField(required=False)  # validated as a list in clean()
    status = forms.ChoiceField(required=False, choices=[(s, s) for s in LISTED_STATUSES])
    carrier = TrackingField("Carrier")
    confirm = forms.ChoiceField(required=False, choices=[("yes", "yes")])

    def __init__(self, data: QueryDict) -> None:
        super().__init__(data)
        self.order_ids = data.getlist("order")

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if not self.order_ids:
            raise forms.ValidationError("select at least one order")
        if len(self.order_ids) > MAX_BULK:
            raise forms.ValidationError(f"at most {MAX_BULK} orders at once")
        try:
            cleaned["orders"] = list(dict.fromkeys(keys.bare(o, keys.ORDER) for o in self.order_ids))
        except keys.InvalidId as exc:
            raise forms.ValidationError(str(exc)) from exc
        if cleaned.get("action") != "ship":  # a carrier typed before choosing another action is not for it
            cleaned["carrier"], cleaned["tracking_numbers"] = None, {}
            return cleaned
        cleaned["tracking_numbers"] = {
            oid: reference(self.data.get(TRACKING_NUMBER_OF + oid), f"tracking number of order {oid}")
            for oid in cleaned["orders"]
        }
        return cleaned
