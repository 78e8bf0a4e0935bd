"""A status list's bulk actions: the selection, the action and what it needs (docs/staff-work.md, "Bulk actions")."""

from __future__ import annotations

from django import forms
from django.http import QueryDict

from adminview.core.schema import LISTED_STATUSES
from dashboard.forms.orders import CancelReasonFields, CarrierFields, reference
from shop import bulk, keys

SLIPS = "slips"  # not a change: the selected orders' packing slips (``dashboard.views.slips``)
MAX_BULK = 200
# A pending list's row carries its order's tracking number as ``tracking_number-<order id>`` (read for the
# selected orders of a bulk ship only).
TRACKING_NUMBER_OF = "tracking_number-"
# and the shipment from one of its warehouses its own as ``tracking_number-<order id>@<warehouse id>``
FROM_WAREHOUSE = "@"


class BulkForm(CancelReasonFields, CarrierFields):
    """A status list's selection and action; ``confirm=yes`` once staff have seen what cancelling will change."""

    action = forms.ChoiceField(choices=[(a, a) for a in (*bulk.ACTIONS, SLIPS)])
    order = forms.CharField(required=False)  # validated as a list in clean()
    status = forms.ChoiceField(required=False, choices=[(s, s) for s in LISTED_STATUSES])
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
            cleaned["carrier"], cleaned["tracking_numbers"], cleaned["warehouse_tracking"] = None, {}, {}
            return cleaned
        cleaned["tracking_numbers"] = {
            oid: reference(self.data.get(TRACKING_NUMBER_OF + oid), f"tracking number of order {oid}")
            for oid in cleaned["orders"]
        }
        cleaned["warehouse_tracking"] = {oid: self._by_warehouse(oid) for oid in cleaned["orders"]}
        return cleaned

    def _by_warehouse(self, oid: str) -> dict[str, str | None]:
        """The order's tracking numbers typed per warehouse (``tracking_number-<oid>@<wid>``)."""
        head = f"{TRACKING_NUMBER_OF}{oid}{FROM_WAREHOUSE}"
        return {
            name.removeprefix(head): reference(self.data.get(name), f"tracking number of order {oid}")
            for name in self.data
            if name.startswith(head)
        }
