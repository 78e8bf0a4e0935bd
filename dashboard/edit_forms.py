"""The edit forms: each shows an entity's current values and carries, signed, what it showed (``seen``).

``seen`` is the entity's ``shop.snapshots.Snapshot`` signed with a salt per form and the entity's id as scope
(Django's ``signing``, as ``dashboard.cursors``), so the save is conditioned on exactly what the form showed
and a form of another entity or kind is refused (400). A field posted back as the form showed it is no change:
it is not validated again (an old value today's limits refuse does not block editing the others) and keeps
the stored value exactly (an absent attribute stays absent). Text is kept as typed (no stripping; a text
area's ``\\r\\n`` is a browser's newline, kept as ``\\n``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.core import signing

from shop import editing
from shop.errors import InvalidInput
from shop.snapshots import CUSTOMER, PRODUCT, STOCK, WAREHOUSE, EditSpec, Snapshot

SEEN = "seen"
ADDRESS_FIELDS = {
    "street": "Street",
    "number": "Number",
    "zip_code": "ZipCode",
    "city": "City",
    "county": "County",
    "country": "Country",
}


def _not_blank(value: str) -> None:
    if not value.strip():
        raise forms.ValidationError("must not be blank")


def _text(max_length: int, *, required: bool = False, label: str | None = None, area: bool = False) -> forms.CharField:
    """Text kept as typed (not stripped); a required one must not be blank."""
    widget = forms.Textarea(attrs={"rows": 4}) if area else forms.TextInput()
    return forms.CharField(
        max_length=max_length,
        required=required,
        strip=False,
        label=label,
        widget=widget,
        help_text=f"at most {max_length:,} characters",
        validators=[_not_blank] if required else [],
    )


class EditForm(forms.Form):
    """An entity's edit form; subclasses name their ``spec`` and map each field to an attribute path."""

    spec: ClassVar[EditSpec]
    paths: ClassVar[dict[str, str]]  # field name -> attribute path (``name`` -> ``Detail.Name``)
    areas: ClassVar[tuple[str, ...]] = ()

    seen = forms.CharField(widget=forms.HiddenInput, max_length=600_000)  # an item is at most 400 KB

    def __init__(self, data: Any = None, *, scope: str, snapshot: Snapshot | None = None) -> None:
        """Unbound: the form showing ``snapshot``. Bound: what was posted, checked against the ``seen`` it carries."""
        self.scope = scope
        initial: dict[str, Any] = {}
        if snapshot is not None:
            initial = {name: snapshot.values[path] or "" for name, path in self.paths.items()}
            initial[SEEN] = signing.dumps(snapshot.as_json(), salt=self._salt(), compress=True)
        super().__init__(data, initial=initial)
        self.snapshot = self._posted_snapshot() if data is not None else snapshot
        if self.snapshot is not None and data is not None:
            for name, path in self.paths.items():
                if name in self.data and self._posted(name) == (self.snapshot.values[path] or ""):
                    self.fields[name].required = False
                    self.fields[name].validators = []

    def _salt(self) -> str:
        return f"dashboard.edit.{self.spec.kind}.{self.scope}"

    def _posted(self, name: str) -> str:
        value = str(self.data.get(name, ""))
        return value.replace("\r\n", "\n") if name in self.areas else value

    def _posted_snapshot(self) -> Snapshot | None:
        try:
            return Snapshot.from_json(signing.loads(str(self.data.get(SEEN, "")), salt=self._salt()), self.spec)
        except (signing.BadSignature, ValueError, InvalidInput):
            return None

    def clean_seen(self) -> Snapshot:
        if self.snapshot is None:
            raise forms.ValidationError("this form was altered or belongs to another page; reload it")
        return self.snapshot

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.snapshot is None:
            return cleaned
        for name, path in self.paths.items():
            if name not in self.data or name not in cleaned:
                continue
            if not isinstance(cleaned[name], str):
                continue  # a number: the service compares it by value
            if self._posted(name) == (self.snapshot.values[path] or ""):
                cleaned[name] = self.snapshot.values[path]  # unchanged: exactly as stored, absent stays absent
            else:
                text = cleaned[name].replace("\r\n", "\n") if name in self.areas else cleaned[name]
                cleaned[name] = text or None
        return cleaned

    def wanted(self, name: str) -> Any:
        """A field's cleaned value, or the value the form showed when the post left the field out."""
        if name in self.data:
            return self.cleaned_data.get(name)
        return self.snapshot.values[self.paths[name]] if self.snapshot is not None else None

    def address(self) -> dict[str, str | None] | None:
        """The address fields that were posted (None when none were: the address is left alone)."""
        posted = {attr: self.cleaned_data.get(name) for name, attr in ADDRESS_FIELDS.items() if name in self.data}
        return posted or None


ADDRESS_PATHS = {name: f"Address.{attr}" for name, attr in ADDRESS_FIELDS.items()}


class AddressFields(forms.Form):
    """The fields of AWS's ``Address`` map (each optional)."""

    street = _text(editing.MAX_ADDRESS_PART, label="Street")
    number = _text(editing.MAX_ADDRESS_PART, label="Number")
    zip_code = _text(editing.MAX_ADDRESS_PART, label="Zip code")
    city = _text(editing.MAX_ADDRESS_PART, label="City")
    county = _text(editing.MAX_ADDRESS_PART, label="County")
    country = _text(editing.MAX_ADDRESS_PART, label="Country")


class CustomerForm(EditForm, AddressFields):
    spec = CUSTOMER
    paths = {"name": "Name", "email": "Email"} | ADDRESS_PATHS
    field_order = ["name", "email", *ADDRESS_FIELDS]

    name = _text(editing.MAX_NAME, required=True)
    email = forms.EmailField(max_length=editing.MAX_EMAIL, help_text="unique among customers")


class ProductForm(EditForm):
    spec = PRODUCT
    paths = {"name": "Detail.Name", "description": "Detail.Description", "price": "Price", "category": "Category"}
    areas = ("description",)

    name = _text(editing.MAX_NAME, required=True)
    description = _text(editing.MAX_DESCRIPTION, area=True)
    price = forms.DecimalField(
        min_value=0,
        max_value=editing.MAX_PRICE - 1,
        decimal_places=editing.PRICE_PLACES,
        widget=forms.TextInput(attrs={"inputmode": "decimal"}),  # not type=number: an old price may have 3 places
        help_text=f">= 0, at most {editing.PRICE_PLACES} decimal places",
    )
    category = _text(editing.MAX_CATEGORY)


class WarehouseForm(EditForm, AddressFields):
    spec = WAREHOUSE
    paths = {"name": "Name"} | ADDRESS_PATHS
    field_order = ["name", *ADDRESS_FIELDS]

    name = _text(editing.MAX_NAME)


class StockForm(EditForm):
    spec = STOCK
    paths = {"quantity": "Quantity"}

    quantity = forms.IntegerField(min_value=0, max_value=editing.MAX_QUANTITY, help_text="a whole number >= 0")


class StockAdjustForm(EditForm):
    """``delta`` (+n received, -n taken) and a ``reason``, conditioned on the quantity the page showed."""

    spec = STOCK
    paths: ClassVar[dict[str, str]] = {}

    delta = forms.IntegerField(
        min_value=-editing.MAX_QUANTITY, max_value=editing.MAX_QUANTITY, label="adjust by", help_text="+n or -n"
    )
    reason = _text(editing.MAX_REASON, required=True)

    def clean_delta(self) -> int:
        value: int = self.cleaned_data["delta"]
        if value == 0:
            raise forms.ValidationError("adjust by a number other than 0")
        return value
