"""The forms of an order staff create or edit (see docs/staff-work.md, "The pages"); a new order's products are
those the page was asked for (``?products=``) or those posted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms

from dashboard.countries import country_choices
from dashboard.forms.lists import CheckedField
from dashboard.forms.orders import NotifyField
from shop import orders, tracking
from shop.amounts import plain_amount
from shop.editing import MAX_ADDRESS_PART
from shop.order_edit import SHIP_TO
from shop.orders import OrderLine

LINE_FIELDS = ("quantity-", "price-", "warehouse-")


def _address_part(label: str) -> forms.CharField:
    return forms.CharField(required=False, max_length=MAX_ADDRESS_PART, label=label)


class ShipToForm(forms.Form):
    """Where an order ships (``shop.order_edit.SHIP_TO``), each field showing what ``ship_to`` holds."""

    street = _address_part("Street and number")
    city = _address_part("City")
    zip = _address_part("Zip code")
    country = forms.ChoiceField(required=False, label="Country", help_text="as ISO 3166 names it")

    def __init__(self, data: Any = None, *, ship_to: dict[str, str | None] | None = None, **kwargs: Any) -> None:
        super().__init__(data, **kwargs)
        self.ship_to = ship_to or {}
        for name in SHIP_TO:
            self.fields[name].initial = self.ship_to.get(name)
        country = self.fields["country"]
        assert isinstance(country, forms.ChoiceField)
        country.choices = country_choices(self.ship_to.get("country"))

    def address_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in SHIP_TO]


class CreateOrderForm(ShipToForm):
    """The order's lines and payment, and where it ships (none given: the customer's address)."""

    customer_id = forms.CharField(max_length=64, label="Customer id")
    payment = forms.ChoiceField(choices=[("paid", "Paid now (a manual payment)"), ("due", "Payment due")])
    reference = forms.CharField(required=False, max_length=tracking.MAX_LENGTH, label="Payment reference")
    notify = NotifyField()

    def __init__(self, data: Any = None, *, products: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(data, **kwargs)
        self.fields["country"].help_text = "empty: the customer's address"
        posted = [k.partition("-")[2] for k in (data or {}) if k.startswith(LINE_FIELDS)]
        self.products = list(dict.fromkeys([*products, *posted]))[: orders.MAX_LINES + 1]
        for pid in self.products:
            self.fields[f"quantity-{pid}"] = forms.IntegerField(
                min_value=0, max_value=orders.MAX_QUANTITY, initial=1, label=f"Quantity of {pid}"
            )
            self.fields[f"price-{pid}"] = CheckedField(
                plain_amount,
                required=False,
                empty_value=None,
                max_length=20,
                label=f"Price of {pid}",
                help_text="empty: the list price",
            )
            self.fields[f"warehouse-{pid}"] = forms.CharField(
                required=False, max_length=64, label=f"Warehouse of {pid}", help_text="empty: one with enough"
            )
        for name in self.fields:
            if name.startswith(LINE_FIELDS):  # shown in a table row, without a label element of their own
                self.fields[name].widget.attrs["aria-label"] = str(self.fields[name].label)

    def rows(self) -> list[tuple[str, forms.BoundField, forms.BoundField, forms.BoundField]]:
        return [(pid, self[f"quantity-{pid}"], self[f"price-{pid}"], self[f"warehouse-{pid}"]) for pid in self.products]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        lines = [
            OrderLine(pid, n, cleaned.get(f"price-{pid}"), cleaned.get(f"warehouse-{pid}") or None)
            for pid in self.products
            if (n := cleaned.get(f"quantity-{pid}"))
        ]
        if not lines and not self.errors:
            self.add_error(None, "an order needs at least one line: give a product a quantity of 1 or more")
        if cleaned.get("payment") == "paid" and not cleaned.get("reference"):
            self.add_error("reference", "a paid order needs its payment's reference")
        cleaned["lines"] = lines
        cleaned["ship_to"] = {name: cleaned.pop(name, None) for name in SHIP_TO}
        return cleaned


class EditOrderForm(ShipToForm):
    """A pending order's edit: the version seen, ``quantity-<pid>`` of its lines (0 removes one), a line to add,
    where it ships (``shop.order_edit.SHIP_TO``: shown as it is; a field absent from a POST is left as it is)."""

    expected_version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    add_product = forms.CharField(required=False, max_length=64, label="Add product (id)")
    add_quantity = forms.IntegerField(required=False, min_value=1, max_value=orders.MAX_QUANTITY, label="Units to add")
    notify = NotifyField()

    def __init__(
        self,
        data: Any = None,
        *,
        lines: dict[str, int] | None = None,
        ship_to: dict[str, str | None] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data, ship_to=ship_to, **kwargs)
        posted = [k.removeprefix("quantity-") for k in (data or {}) if k.startswith("quantity-")]
        self.lines = list(dict.fromkeys([*(lines or {}), *posted]))
        for pid in self.lines:
            self.fields[f"quantity-{pid}"] = forms.IntegerField(  # absent: the line keeps its quantity
                required=False,
                min_value=0,
                max_value=orders.MAX_QUANTITY,
                initial=(lines or {}).get(pid),
                label=f"Quantity of {pid}",
            )

    def quantity_fields(self) -> list[forms.BoundField]:
        return [self[f"quantity-{pid}"] for pid in self.lines]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        given = {name: cleaned.pop(name, None) or None for name in SHIP_TO}
        cleaned["address"] = {n: v for n, v in given.items() if n in self.data and v != self.ship_to.get(n)}
        cleaned["quantities"] = {pid: cleaned.pop(f"quantity-{pid}", None) for pid in self.lines}
        cleaned["quantities"] = {pid: n for pid, n in cleaned["quantities"].items() if n is not None}
        cleaned["add_product"] = cleaned.get("add_product") or None
        if cleaned["add_product"] and not cleaned.get("add_quantity"):
            self.add_error("add_quantity", "how many units of the product to add")
        return cleaned
