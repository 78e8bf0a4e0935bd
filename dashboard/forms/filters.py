"""Each list page's own filter: its query parameters beside the list parameters (``dashboard.forms.lists``)."""

from __future__ import annotations

from datetime import date

from django import forms
from django.http import QueryDict
from django.urls import reverse_lazy

from adminview.core.schema import ACTIVITY_KINDS
from adminview.reads.catalogue import CUSTOMER_SORTS
from adminview.reads.returns_reads import OPEN  # the queue's default: every return awaiting staff
from adminview.reads.search import MAX_TERM, term_of
from adminview.reads.selectors import LISTS, NEWEST, OLDEST
from dashboard.forms.lists import DEFAULT_PAGE, FORMATS, FilterForm, ListForm, RangeFields, choice_field, day_field
from dashboard.forms.ranges import DayRange
from returns.keys import ReturnReason, ReturnStatus
from shop.errors import InvalidInput
from shop.keys import OrderStatus
from shop.pattern_registry import Param, check_params
from shop.timestamps import DateRange

QUEUE_STATUSES = (OPEN, *(s.value for s in ReturnStatus))
JSON = "json"
PARTIQL = "partiql"


class SortForm(FilterForm):
    sort = choice_field((NEWEST, OLDEST), "sort", labels=("newest first", "oldest first"), default=NEWEST, label="sort")


class CategoryOrdersForm(ListForm, DayRange, SortForm):
    """A category's orders: ``from`` / ``to`` (any length: the list is paged), ``sort`` and the list parameters."""

    def shown(self) -> DayRange:
        shown = super().shown()
        shown.initial["sort"] = self.cleaned_data["sort"]
        return shown


ORDER_FILTERS = ("sort", "from", "to")  # an order list's filter, as the query names it


class OrderFilter(SortForm, RangeFields):
    """An order list's ``sort`` and ``from`` / ``to`` (order dates, both included, each optional)."""

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        self.date_range(self.cleaned_data.get("start"), self.cleaned_data.get("end"))
        return cleaned

    def dates(self) -> DateRange:
        return DateRange(self.cleaned_data["start"], self.cleaned_data["end"])

    def scope(self) -> str:
        """The order and the range, for a "load more" cursor: one made for another cannot be used here."""
        dates = self.dates()
        return "|".join([self.cleaned_data["sort"], *(d.isoformat() if d else "" for d in (dates.start, dates.end))])

    def filters(self) -> list[forms.BoundField]:
        return [self["sort"], self["start"], self["end"]]


class OrderListForm(ListForm, OrderFilter):
    """An order list's parameters: its filter and the list parameters."""


class CustomerPageForm(OrderListForm):
    """A customer's page: its orders' parameters, and ``format=json`` for the customer's totals alone."""

    format = choice_field((*FORMATS, JSON), "format")


class PatternForm(ListForm):
    """An access pattern's parameters (from the registry, named as in the URL) checked by the registry as the CLI
    checks them, plus the list parameters; ``format=partiql`` asks for the pattern as one PartiQL statement."""

    format = choice_field((*FORMATS, PARTIQL), "format")

    def __init__(self, params: tuple[Param, ...], data: QueryDict | None) -> None:
        super().__init__(data)
        self.params = params
        for param in params:
            self.fields[param.query_name] = forms.CharField(
                label=param.label,
                max_length=8192 if param.kind == "ids" else 300,
                widget=forms.TextInput(attrs={"placeholder": param.help} if param.help else {}),
            )
        self.fields["limit"].label = "page size"
        self.fields["limit"].widget.attrs["placeholder"] = str(DEFAULT_PAGE)

    def param_fields(self) -> list[forms.BoundField]:
        return [self[param.query_name] for param in self.params]

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        try:
            cleaned["params"] = check_params(
                self.params, {p.name: str(cleaned.get(p.query_name, "")) for p in self.params}
            )
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc
        return cleaned


class CustomersForm(ListForm):
    sort = choice_field(
        CUSTOMER_SORTS, "sort", labels=("by name", "newest first"), default=CUSTOMER_SORTS[0], label="sort"
    )


class SearchForm(ListForm):
    """``q``: empty is nothing searched yet (a CSV of nothing is refused); else checked by ``term_of``."""

    q = forms.CharField(
        required=False,
        max_length=MAX_TERM,
        label="Find",
        widget=forms.SearchInput(
            attrs={
                "placeholder": "a name, an email, a product, an order, tracking or transaction id",
                "autocomplete": "off",
                "hx-get": reverse_lazy("dashboard:search"),
                "hx-trigger": "input changed delay:400ms, search",
                "hx-target": "#search-results",
                "hx-push-url": "true",
            }
        ),
    )

    def clean_q(self) -> str:
        text: str = self.cleaned_data.get("q") or ""
        if text:
            try:
                term_of(text)
            except InvalidInput as exc:
                raise forms.ValidationError(str(exc)) from exc
        return text

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if self.wants_csv and "q" in cleaned and not cleaned["q"]:
            self.add_error("q", "type what to search for")
        return cleaned


class StatusListForm(OrderListForm):
    """``/orders/?status=`` (PENDING by default; ``ALL``: every order), sorted and filtered by date."""

    status = choice_field(LISTS, "status", default=OrderStatus.PENDING)
    select = forms.ChoiceField(required=False, choices=[("", ""), ("page", "page")])  # "select page", no JS
    # the pending list's CSV as a pick list: one row per order line
    lines = forms.ChoiceField(required=False, choices=[("", ""), ("1", "1")])

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if cleaned.get("lines") and cleaned.get("status") != OrderStatus.PENDING:
            self.add_error("lines", "one row per order line is the pending list's pick list")
        return cleaned

    @property
    def wants_lines(self) -> bool:
        return self.wants_csv and bool(self.cleaned_data.get("lines"))


class NewOrdersForm(forms.Form):
    """The live queue's poll: the list's status and the sort key of the newest row it showed."""

    status = forms.ChoiceField(choices=[(s, s) for s in LISTS])
    newest = forms.RegexField(
        required=False, max_length=120, regex=r"^[0-9T:\-.+Z ]{0,40}#[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$"
    )


class ActivityForm(ListForm):
    """``/activity/``: each filter is a key condition; a user and a kind are each an index partition: one only."""

    user = forms.CharField(required=False, max_length=150, strip=True, label="user")
    day = day_field("day")
    kind = choice_field(("", *ACTIVITY_KINDS), "kind", labels=("any", *ACTIVITY_KINDS), label="kind")
    field_order = ["user", "day", "kind"]

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if cleaned.get("user") and cleaned.get("kind"):
            self.add_error("kind", "filter by a user or by a kind, not both")
        return cleaned

    def filters(self) -> list[forms.BoundField]:
        return [self["user"], self["day"], self["kind"]]


class DueForm(ListForm):
    """``/orders/due/?date=YYYY-MM-DD`` (default: today, UTC): the field ``day``, named ``date`` in the query."""

    day = day_field("date")

    def __init__(self, query: QueryDict | None, today: date) -> None:
        super().__init__(query)
        self.today = today

    def add_prefix(self, field_name: str) -> str:
        return super().add_prefix("date" if field_name == "day" else field_name)

    def clean_day(self) -> date:
        found: date | None = self.cleaned_data.get("day")
        return found or self.today

    def shown(self) -> DueForm:
        shown = DueForm(None, today=self.today)
        shown.initial = {"day": self.cleaned_data["day"]}
        return shown


class ReturnsQueueForm(ListForm):
    """``/returns/?status=`` (default ``open``), ``reason=`` (any when empty) and the list parameters."""

    status = choice_field(QUEUE_STATUSES, "status", default=OPEN)
    reason = choice_field(
        ("", *(r.value for r in ReturnReason)), "reason", labels=("any reason", *(r.label for r in ReturnReason))
    )
