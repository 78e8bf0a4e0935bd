"""The edit forms: each carries, signed, the ``shop.snapshots.Snapshot`` it showed (``seen``), so the save is
conditioned on exactly that (see docs/editing.md, "What a save writes"). A field posted back as shown, or left out,
is not validated again: an old value today's limits refuse does not block editing the others."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from django import forms
from django.core import signing
from django.forms.utils import pretty_name

from dashboard.category_names import matching
from dashboard.countries import country_choices
from dashboard.profiles import ADDRESS_CSV_HEADER
from shop import editing
from shop.amounts import PLAIN_DECIMAL
from shop.audit import attribute_words
from shop.errors import InvalidInput
from shop.models import Address
from shop.snapshots import CUSTOMER, PRODUCT, STOCK, WAREHOUSE, EditSpec, Snapshot

SEEN = "seen"
ADDRESS_FIELDS = {name: Address.get_attributes()[name].attr_name for name in ADDRESS_CSV_HEADER}  # field -> attribute


def _text(max_length: int, **options: Any) -> forms.CharField:
    """Text trimmed of surrounding spaces (Django's ``strip``); optional unless ``required``, then not blank."""
    help_text = f"at most {max_length:,} characters"
    return forms.CharField(max_length=max_length, help_text=help_text, **{"required": False, **options})


class AmountField(forms.DecimalField):
    """A price as staff type it: a plain decimal (``shop.amounts``), never ``1e3``, which Decimal reads as 1000."""

    def to_python(self, value: Any) -> Any:  # a Decimal, or None when empty (the stubs say int)
        number = super().to_python(value)
        if number is not None and not PLAIN_DECIMAL.fullmatch(str(value).strip()):
            raise forms.ValidationError("Enter a plain number such as 12.50 (no exponent).", code="invalid")
        return number


class SuggestingInput(forms.TextInput):
    """A text input offering ``options`` in a ``<datalist>``; any text can still be typed."""

    template_name = "dashboard/widgets/datalist_input.html"

    def __init__(self, list_id: str, attrs: dict[str, Any] | None = None) -> None:
        super().__init__({"list": list_id, "autocomplete": "off", **(attrs or {})})
        self.options: Sequence[str] = ()

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        context["widget"]["options"] = self.options
        return context


class EditForm(forms.Form):
    """An entity's edit form; subclasses name their ``spec`` and map each field to an attribute path."""

    spec: ClassVar[EditSpec]
    paths: ClassVar[dict[str, str]]  # field name -> attribute path (``name`` -> ``Detail.Name``)
    areas: ClassVar[tuple[str, ...]] = ()
    always_required: ClassVar[tuple[str, ...]] = ()  # validated even when posted as shown (what a save needs)
    required_css_class = "required"

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
        if "country" in self.fields and isinstance(self.fields["country"], forms.ChoiceField):
            stored = self.snapshot.values.get(ADDRESS_PATHS["country"]) if self.snapshot is not None else None
            self.fields["country"].choices = country_choices(stored)
        self.relaxed: dict[str, bool] = {}  # field -> whether it is required (shown so again after validation)
        if self.snapshot is not None and data is not None:
            for name in self.paths:
                if name not in self.always_required and not self.changed(name):
                    self.relaxed[name] = self.fields[name].required
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
        for name, required in self.relaxed.items():
            self.fields[name].required = required  # validated or not, a required field is shown as one
        if self.snapshot is None:
            return cleaned
        for name, path in self.paths.items():
            if name not in self.data or not isinstance(cleaned.get(name), str):
                continue  # left out, refused, or a number (the service compares it by value)
            if not self.changed(name):
                cleaned[name] = self.snapshot.values[path]  # unchanged: exactly as stored, absent stays absent
            else:
                text = cleaned[name].replace("\r\n", "\n") if name in self.areas else cleaned[name]
                cleaned[name] = text or None
        return cleaned

    def changed(self, name: str) -> bool:
        """Whether the post changes the field: it holds it, other than the form showed it."""
        if name not in self.data or self.snapshot is None:
            return False
        return self._posted(name) != (self.snapshot.values[self.paths[name]] or "")

    def wanted(self, name: str) -> Any:
        """A field's cleaned value, or the value the form showed when the post left the field out."""
        if name in self.data:
            return self.cleaned_data.get(name)
        return self.snapshot.values[self.paths[name]] if self.snapshot is not None else None

    def address(self) -> dict[str, str | None] | None:
        """The address fields that were posted (None when none were: the address is left alone)."""
        posted = {attr: self.cleaned_data.get(name) for name, attr in ADDRESS_FIELDS.items() if name in self.data}
        return posted or None

    def arguments(self) -> dict[str, Any]:
        """The edit service's arguments: ``seen``, each field as ``wanted``, the address fields as one ``address``."""
        named = {name: self.wanted(name) for name in self.paths if name not in ADDRESS_FIELDS}
        return {SEEN: self.cleaned_data[SEEN], **named} | (
            {"address": self.address()} if isinstance(self, AddressFields) else {}
        )


ADDRESS_PATHS = {name: f"Address.{attr}" for name, attr in ADDRESS_FIELDS.items()}


class AddressFields(forms.Form):
    """The fields of AWS's ``Address`` map; what a parcel needs is required (a house number is often part of
    the street, and many countries have no county). Unchanged fields are not checked again (``EditForm``)."""

    street = _text(editing.MAX_ADDRESS_PART, label="Street", required=True)
    number = _text(editing.MAX_ADDRESS_PART, label="Number")
    zip_code = _text(editing.MAX_ADDRESS_PART, label="Zip code", required=True)
    city = _text(editing.MAX_ADDRESS_PART, label="City", required=True)
    county = _text(editing.MAX_ADDRESS_PART, label="County")
    country = forms.ChoiceField(label="Country", help_text="as ISO 3166 names it")  # choices: dashboard.countries


class CustomerForm(EditForm, AddressFields):
    spec = CUSTOMER
    paths = {"name": "Name", "email": "Email"} | ADDRESS_PATHS
    field_order = ["name", "email", *ADDRESS_FIELDS]

    name = _text(editing.MAX_NAME, required=True)
    email = forms.EmailField(max_length=editing.MAX_EMAIL, help_text="unique among customers")


class ProductForm(EditForm):
    """A product; its category one of ``categories`` ignoring case, or a new one with ``new_category`` ticked."""

    spec = PRODUCT
    paths = {"name": "Detail.Name", "description": "Detail.Description", "price": "Price", "category": "Category"}
    areas = ("description",)
    field_order = ["name", "description", "price", "category", "new_category"]

    name = _text(editing.MAX_NAME, required=True)
    description = _text(editing.MAX_DESCRIPTION, widget=forms.Textarea(attrs={"rows": 4}))
    price = AmountField(
        min_value=0,
        max_value=editing.MAX_PRICE - 1,
        decimal_places=editing.PRICE_PLACES,
        widget=forms.TextInput(attrs={"inputmode": "decimal"}),  # not type=number: an old price may have 3 places
        help_text=f">= 0, at most {editing.PRICE_PLACES} decimal places",
    )
    category = _text(
        editing.MAX_CATEGORY, label="Category", widget=SuggestingInput("category-choices", {"spellcheck": "false"})
    )
    new_category = forms.BooleanField(
        required=False, label="A new category", help_text="tick to create the category as typed"
    )

    def __init__(self, data: Any = None, *, categories: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(data, **kwargs)
        own = self.snapshot.values["Category"] if self.snapshot is not None else None
        self.categories = [*([own] if own and matching(own, categories) is None else []), *categories]
        widget = self.fields["category"].widget
        if isinstance(widget, SuggestingInput):
            widget.options = self.categories
        self.fields["category"].help_text = (
            "one of the catalogue's categories (the list offers them; case does not matter)"
            if self.categories
            else "no categories could be listed; tick 'A new category' to name one"
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        typed = cleaned.get("category")
        if not self.changed("category") or not typed or "category" in self.errors:
            return cleaned
        known = matching(typed, self.categories)
        if known is not None:
            cleaned["category"] = known  # "beauty" means "Beauty": never a second spelling of one category
        elif not cleaned.get("new_category"):
            self.add_error(
                "category",
                f"{typed!r} is not one of the catalogue's categories; pick one from the list, "
                "or tick 'A new category' to create it",
            )
        return cleaned


class WarehouseForm(EditForm, AddressFields):
    spec = WAREHOUSE
    paths = {"name": "Name"} | ADDRESS_PATHS
    field_order = ["name", *ADDRESS_FIELDS]

    name = _text(editing.MAX_NAME)


class StockForm(EditForm):
    spec = STOCK
    paths = {"quantity": "Quantity"}
    always_required = ("quantity",)  # setting the stock needs a number, even where there is no stock row yet

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


EDIT_FORMS: tuple[type[EditForm], ...] = (CustomerForm, ProductForm, WarehouseForm, StockForm)


def attribute_label(path: str) -> str:
    """How a page names a stored attribute: the label of the field that edits it, else its name in words."""
    for form_class in EDIT_FORMS:
        name = next((n for n, shown in form_class.paths.items() if shown == path), None)
        if name is not None:
            return str(form_class.base_fields[name].label or pretty_name(name))
    return attribute_words(path)
