"""Validation of every query parameter the pages accept (a bad one is a 400 with the form's message)."""

from __future__ import annotations

from datetime import date, timedelta

from django import forms
from django.core.validators import validate_email
from django.http import QueryDict
from django.urls import reverse_lazy

from adminview.core.schema import ACTIVITY_KINDS, LISTED_STATUSES
from adminview.reads.search import MAX_TERM, term_of
from adminview.reads.selectors import NEWEST, OLDEST, Dates
from shop import keys, tracking
from shop.errors import InvalidInput
from shop.keys import OrderStatus
from shop.pattern_registry import Param, check_params

DEFAULT_PAGE = 50
MAX_PAGE = 500
DEFAULT_INVOICE_DAYS = 365
DEFAULT_STATS_DAYS = 30
DEFAULT_CHART_DAYS = 90  # the home page's charts and a category's orders
MAX_STATS_DAYS = 366
FORMATS = ("", "html", "csv")  # "" and "html": the page itself


def error_lines(form: forms.Form) -> list[str]:
    """Every error as one readable line, its field's label first: ``from: Enter a valid date.``"""
    lines = []
    for name, errors in form.errors.items():
        label = "" if name == "__all__" else f"{form.fields[name].label or name}: "
        lines += [f"{label}{error}" for error in errors]
    return lines


def first_error(form: forms.Form) -> str:
    """One readable line: ``from: Enter a valid date.``"""
    return next(iter(error_lines(form)), "invalid parameters")


class FilterForm(forms.Form):
    """A form of query parameters that a page shows as its filter: a control per field, marked when required,
    each error beside its control (``dashboard/_filter_errors.html`` also lists them all above the form)."""

    label_suffix = ""
    required_css_class = "required"

    def error_lines(self) -> list[str]:
        return error_lines(self)


class ListForm(FilterForm):
    """Parameters shared by the list pages: ``cursor`` (opaque, from "load more"), ``limit``, ``format``."""

    cursor = forms.CharField(required=False, max_length=8192)
    limit = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE)
    format = forms.ChoiceField(
        required=False,
        choices=[(f, f) for f in FORMATS],
        error_messages={"invalid_choice": "'%(value)s' is not a format; use html or csv"},
    )

    def clean_limit(self) -> int:
        return self.cleaned_data.get("limit") or DEFAULT_PAGE

    @property
    def wants_csv(self) -> bool:
        return self.cleaned_data.get("format") == "csv"


def _day(label: str) -> forms.DateField:
    return forms.DateField(
        required=False,
        input_formats=["%Y-%m-%d"],
        label=label,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )


class DayRange(FilterForm):
    """``from`` / ``to`` (YYYY-MM-DD, both inclusive): the fields ``start`` and ``end``, named ``from`` and ``to`` in
    the query (``add_prefix``). Absent: the ``default_days`` up to ``to`` (default: today, UTC)."""

    max_days: int | None = None
    default_days = DEFAULT_STATS_DAYS
    QUERY_NAMES = {"start": "from", "end": "to"}

    start = _day("from")
    end = _day("to")

    def __init__(self, query: QueryDict | None, today: date, default_days: int | None = None) -> None:
        super().__init__(query)
        self.today = today
        if default_days is not None:
            self.default_days = default_days

    def add_prefix(self, field_name: str) -> str:
        return super().add_prefix(self.QUERY_NAMES.get(field_name, field_name))

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        end = cleaned.get("end") or self.today
        start = cleaned.get("start") or end - timedelta(days=self.default_days - 1)
        if start > end:
            self.add_error("start", f"'from' ({start.isoformat()}) is after 'to' ({end.isoformat()})")
        elif self.max_days is not None and (end - start).days + 1 > self.max_days:
            self.add_error("end", f"a range covers at most {self.max_days} days")
        cleaned["start"], cleaned["end"] = start, end
        return cleaned

    def shown(self) -> DayRange:
        """The form as the page shows it after a valid query: the range in force, defaults filled in."""
        shown = type(self)(None, today=self.today, default_days=self.default_days)
        shown.initial = {"start": self.cleaned_data["start"], "end": self.cleaned_data["end"]}
        return shown


class InvoiceRangeForm(ListForm, DayRange):
    """``from`` / ``to`` (YYYY-MM-DD, both inclusive); absent: the last 365 days up to today (UTC)."""

    default_days = DEFAULT_INVOICE_DAYS + 1


class RangeForm(DayRange):
    """``from`` / ``to`` (YYYY-MM-DD, both inclusive, at most ``max_days``: 366); absent: the ``default_days`` up to
    today (UTC)."""

    max_days = MAX_STATS_DAYS


class StatsRangeForm(RangeForm):
    """A stats page's range (default: the 30 days up to today, UTC) and ``format``."""

    format = ListForm.base_fields["format"]

    @property
    def wants_csv(self) -> bool:
        return self.cleaned_data.get("format") == "csv"


class SortForm(FilterForm):
    """``sort``: an order list newest (the default) or oldest first."""

    sort = forms.ChoiceField(
        required=False,
        choices=[(NEWEST, "newest first"), (OLDEST, "oldest first")],
        label="sort",
        error_messages={"invalid_choice": f"%(value)r is not a sort; use {NEWEST} or {OLDEST}"},
    )

    def clean_sort(self) -> str:
        return self.cleaned_data.get("sort") or NEWEST


class CategoryOrdersForm(ListForm, DayRange, SortForm):
    """A category's orders: ``from`` / ``to`` (any length: the list is paged), ``sort`` and the list parameters."""

    def shown(self) -> DayRange:
        shown = super().shown()
        shown.initial["sort"] = self.cleaned_data["sort"]
        return shown


ORDER_FILTERS = ("sort", "from", "to")  # an order list's filter, as the query names it


class OrderFilter(SortForm):
    """How an order list is shown: ``sort``, and ``from`` / ``to`` (YYYY-MM-DD): order dates, both included, each
    optional (no bound). The fields ``start`` and ``end`` are named ``from`` and ``to`` in the query."""

    start = _day("from")
    end = _day("to")

    def add_prefix(self, field_name: str) -> str:
        return super().add_prefix(DayRange.QUERY_NAMES.get(field_name, field_name))

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        start, end = cleaned.get("start"), cleaned.get("end")
        if isinstance(start, date) and isinstance(end, date) and start > end:
            self.add_error("start", f"'from' ({start.isoformat()}) is after 'to' ({end.isoformat()})")
        return cleaned

    def dates(self) -> Dates:
        return Dates(self.cleaned_data["start"], self.cleaned_data["end"])

    def scope(self) -> str:
        """The order and the range, for a "load more" cursor: one made for another cannot be used here."""
        dates = self.dates()
        return "|".join([self.cleaned_data["sort"], *(d.isoformat() if d else "" for d in (dates.start, dates.end))])

    def filters(self) -> list[forms.BoundField]:
        """The fields the page shows as its filter (not the list parameters)."""
        return [self["sort"], self["start"], self["end"]]


class OrderListForm(ListForm, OrderFilter):
    """An order list's parameters: its filter and the list parameters."""


class FormatForm(forms.Form):
    """Only ``format`` (html or csv)."""

    format = ListForm.base_fields["format"]

    @property
    def wants_csv(self) -> bool:
        return self.cleaned_data.get("format") == "csv"


class TransactionForm(forms.Form):
    transaction_id = forms.CharField(max_length=200, strip=True, label="transaction id")


class PatternForm(ListForm):
    """An access pattern's parameters (fields from the registry, named as in the URL: ``customer_id``, ``from``,
    ``to``...) plus the list parameters; each value is checked by the registry, as the CLI checks it."""

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
        """The pattern's own parameters (not the list parameters), as the form shows them."""
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


JUMP_KINDS = {
    "order": keys.ORDER,
    "customer": keys.CUSTOMER,
    "product": keys.PRODUCT,
    "warehouse": keys.WAREHOUSE,
    "invoice": keys.INVOICE,
    "shipment": keys.SHIPMENT,
}
EMAIL = "email"
SEARCH = "search"  # anything else: a name, a word of a product's name, the start of an email
SEARCHED_KINDS = frozenset({"customer", "product"})  # what the search page finds by name


class JumpForm(forms.Form):
    """The top bar's jump box: an id of one of ``JUMP_KINDS`` (bare or prefixed), a customer's email (exact), or
    text to search for (``search``: a name, a partial email). A customer's or a product's "id" that cannot be an id
    (``Ada Lovelace``, ``ada@``) is searched for too: ``cleaned_data["search"]`` is then True."""

    kind = forms.ChoiceField(choices=[(k, k) for k in [*JUMP_KINDS, EMAIL, SEARCH]])
    id = forms.CharField(max_length=254, strip=True)

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        kind = cleaned["kind"]
        cleaned["search"] = kind == SEARCH
        if kind == EMAIL:
            try:
                validate_email(cleaned["id"])
            except forms.ValidationError as exc:
                raise forms.ValidationError(f"{cleaned['id']!r} is not an email address") from exc
            return cleaned
        if kind == SEARCH:
            return cleaned
        try:
            cleaned["id"] = keys.bare(cleaned["id"], JUMP_KINDS[kind])
        except keys.InvalidId as exc:
            if kind not in SEARCHED_KINDS:
                raise forms.ValidationError(str(exc)) from exc
            cleaned["search"] = True
        return cleaned


class SearchForm(ListForm):
    """``/search/?q=``: customers and products by a word of their name, customers also by their email's start
    (``adminview.reads.search``). Empty: nothing searched yet (the page shows the box; a CSV of nothing is refused);
    otherwise at least two letters or digits. The box asks for results as staff type (htmx, after a pause) and
    works as a plain form without JavaScript."""

    q = forms.CharField(
        required=False,
        max_length=MAX_TERM,
        label="Name or email",
        widget=forms.SearchInput(
            attrs={
                "placeholder": "a name, a word of a product's name, an email",
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
    """``/orders/?status=`` (PENDING by default), sorted and filtered by date."""

    status = forms.ChoiceField(required=False, choices=[(s, s) for s in LISTED_STATUSES])
    select = forms.ChoiceField(required=False, choices=[("", ""), ("page", "page")])  # "select page", no JS

    def clean_status(self) -> str:
        return self.cleaned_data.get("status") or OrderStatus.PENDING


class NewOrdersForm(forms.Form):
    """The live queue's poll: the list's status and the sort key of the newest row it showed."""

    status = forms.ChoiceField(choices=[(s, s) for s in LISTED_STATUSES])
    newest = forms.RegexField(
        required=False, max_length=120, regex=r"^[0-9T:\-.+Z ]{0,40}#[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$"
    )


class ActivityForm(ListForm):
    """``/activity/?user=&day=YYYY-MM-DD&kind=``: each narrows the list with a key condition (a user and a kind
    are each their own index partition: one or the other)."""

    user = forms.CharField(required=False, max_length=150, strip=True, label="user")
    day = _day("day")
    kind = forms.ChoiceField(
        required=False,
        choices=[("", "any"), *((k, k) for k in ACTIVITY_KINDS)],
        label="kind",
        error_messages={"invalid_choice": f"%(value)r is not a kind; use one of {', '.join(ACTIVITY_KINDS)}"},
    )
    field_order = ["user", "day", "kind"]

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        if cleaned.get("user") and cleaned.get("kind"):
            self.add_error("kind", "filter by a user or by a kind, not both")
        return cleaned

    def filters(self) -> list[forms.BoundField]:
        """The fields the page shows as its filter (the list parameters are not among them)."""
        return [self["user"], self["day"], self["kind"]]


class DueForm(ListForm):
    """``/orders/due/?date=YYYY-MM-DD`` (default: today, UTC): the field ``day``, named ``date`` in the query."""

    day = _day("date")

    def __init__(self, query: QueryDict | None, today: date) -> None:
        super().__init__(query)
        self.today = today

    def add_prefix(self, field_name: str) -> str:
        return super().add_prefix("date" if field_name == "day" else field_name)

    def clean_day(self) -> date:
        found: date | None = self.cleaned_data.get("day")
        return found or self.today

    def shown(self) -> DueForm:
        """The form as the page shows it after a valid query: the day in force."""
        shown = DueForm(None, today=self.today)
        shown.initial = {"day": self.cleaned_data["day"]}
        return shown


BULK_ACTIONS = ("ship", "cancel", "deliver")
MAX_BULK = 200
# A pending list's row carries its order's tracking number as ``tracking_number-<order id>`` (read for the
# selected orders of a bulk ship only).
TRACKING_NUMBER_OF = "tracking_number-"


def _reference(value: str | None, what: str) -> str | None:
    """``shop.tracking``'s check of a carrier or tracking number, as a form error."""
    try:
        return tracking.reference(value, what=what)
    except InvalidInput as exc:
        raise forms.ValidationError(str(exc)) from exc


class TrackingField(forms.CharField):
    """An optional carrier or tracking number: trimmed and length-checked as any text field (the browser is told
    the limit too), then checked by ``shop.tracking``; empty is None."""

    def __init__(self, label: str) -> None:
        super().__init__(required=False, max_length=tracking.MAX_LENGTH, label=label)

    def clean(self, value: object) -> str | None:
        return _reference(super().clean(value), str(self.label).lower())


class BulkForm(forms.Form):
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
            oid: _reference(self.data.get(TRACKING_NUMBER_OF + oid), f"tracking number of order {oid}")
            for oid in cleaned["orders"]
        }
        return cleaned


class ActionForm(forms.Form):
    """Ship / cancel / deliver: the version the user saw (optimistic locking; a changed order is a 409). The
    cleaned fields are the action's keyword arguments."""

    expected_version = forms.IntegerField(required=False, min_value=0, label="expected version")


class ShipForm(ActionForm):
    """Ship: also the carrier and the tracking number put on the shipments (both optional)."""

    carrier = TrackingField("Carrier")
    tracking_number = TrackingField("Tracking number")


class ConsistencyForm(forms.Form):
    """``format``: the page itself (empty or ``html``) or ``json``."""

    format = forms.ChoiceField(
        required=False,
        choices=[(f, f) for f in ("", "html", "json")],
        error_messages={"invalid_choice": "'%(value)s' is not a format; use html or json"},
    )

    @property
    def wants_json(self) -> bool:
        return self.cleaned_data.get("format") == "json"
