"""Which orders' packing slips to print: ``ids``, a comma-separated list of order ids, at most ``MAX_SLIPS``."""

from __future__ import annotations

from django import forms

from shop import keys

MAX_SLIPS = 100  # orders a print run holds: one page each


class SlipsForm(forms.Form):
    """``/orders/slips/?ids=1,2,3``: the distinct order ids, in the order given. Cleaned into ``orders``."""

    ids = forms.CharField(max_length=MAX_SLIPS * 66, label="order ids")

    def clean_ids(self) -> list[str]:
        given = [part.strip() for part in self.cleaned_data["ids"].split(",") if part.strip()]
        if not given:
            raise forms.ValidationError("give at least one order id")
        try:
            wanted = list(dict.fromkeys(keys.bare(oid, keys.ORDER) for oid in given))
        except keys.InvalidId as exc:
            raise forms.ValidationError(str(exc)) from exc
        if len(wanted) > MAX_SLIPS:
            raise forms.ValidationError(f"at most {MAX_SLIPS} packing slips at once (this asks for {len(wanted)})")
        return wanted
