"""The admin view table, declared once: its indexes and every kind of item it holds, with their keys.

Every reader and writer builds a view key or an index key with a function of this module and names an index by an
``Index`` below; no other module spells a view key prefix or an index name (as ``shop.keys`` does for the shop
table). Each kind of item is one ``Kind``: its typed attributes, its indexes, how it is built from plain values
(``kind.item``) and read back into its frozen row (``kind.read``). ``describe()`` lays the kinds out with their keys,
as ``docs/admin-view.md`` shows them: **anchors** hold the facts their group of source items implies and the sync's
bookkeeping (``adminview.core.anchor``), with a ``counted`` item beside them; **entries** each follow from one
anchor, in the base table so an entry costs one write; **sums** are kept exact by the counted items
(``adminview.core.numbers``). A customer's sums sit in their partition, so one Query of it reads the profile, the
refunded sum and every order entry.

Lists that take the whole stream (every order's status, every staff change, a busy category) are write-sharded:
their partition key ends in ``<shard>`` = ``shard_of(id, n)``, so no single key takes more than its share of
DynamoDB's per-partition write ceiling; a page queries every shard and merges.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, make_dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from functools import cached_property
from typing import Any, Final, Generic, TypeVar

from adminview.core import values
from adminview.core.values import Item
from adminview.core.values import Key as Key
from returns import keys as return_keys
from shop import keys
from shop.keys import OrderStatus
from shop.timestamps import parse_ts

# --- indexes -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Index:
    """A global secondary index: its name, key attributes and what it projects besides the keys."""

    name: str
    hash_key: str
    range_key: str
    projected: tuple[str, ...] = ()

    @property
    def key_names(self) -> tuple[str, str]:
        return self.hash_key, self.range_key


# --- the table's own keys ------------------------------------------------------------------------------------

PK, SK, KIND = "PK", "SK", "Kind"

ORDER_SK, RETURN_SK, REFUNDS_SK, PROFILE_SK, PRODUCT_SK = "#order", "#return", "#refunds", "#profile", "#product"
COUNTED_SUFFIX: Final = "#counted"
CUSTOMER_REFUNDED_SK: Final = "#refunded"  # sorts between ``#profile`` and the order entries (``o#...``)

ORDER, COLLECTION, COUNTED = "order", "collection", "counted"
RETURN, REFUNDS, CUSTOMER_RETURN = "return", "refunds", "customer-return"
PROFILE, PRODUCT, COUNTER, BUYERS = "profile", "product", "counter", "buyers"
CUSTOMER_ORDER, PAYMENT, CATEGORY_ORDER = "customer-order", "payment", "category-order"
SEARCH, ACTIVITY = "search", "activity"

LISTED_STATUSES: Final = (OrderStatus.PENDING, OrderStatus.SHIPPED, OrderStatus.DELIVERED, OrderStatus.CANCELLED)
"""The statuses with a list page: every status, so that the lists together hold every order with one. DELIVERED,
where most orders end, takes as much of the stream as PENDING (every order enters it): the write shards carry it."""

MAX_KEY_BYTES: Final = 1024  # DynamoDB allows 2,048 for a partition key and 1,024 for a sort key
MAX_CATEGORY: Final = 100  # a longer category is cut (keys and counter names stay short)
UNCATEGORIZED: Final = "uncategorized"


def order_anchor(order_id: str) -> Key:
    return keys.with_prefix(keys.ORDER, order_id), ORDER_SK


def counted(anchor: Key) -> Key:
    """Where an anchor's counted item is kept (what it added to the sums): beside it."""
    return anchor[0], anchor[1] + COUNTED_SUFFIX


def counted_anchor(key: Key) -> Key | None:
    """The anchor a counted item is kept for; None for any other key."""
    return (key[0], key[1].removesuffix(COUNTED_SUFFIX)) if key[1].endswith(COUNTED_SUFFIX) else None


def return_anchor(return_key: str) -> Key:
    return return_key, RETURN_SK


def refunds_anchor(order_id: str) -> Key:
    """An order's refunds (the returns table's ``o#<oid>`` partition) have one anchor beside the order's."""
    return keys.with_prefix(keys.ORDER, order_id), REFUNDS_SK


def profile(customer_id: str) -> Key:
    return keys.with_prefix(keys.CUSTOMER, customer_id), PROFILE_SK


def product(product_id: str) -> Key:
    return keys.with_prefix(keys.PRODUCT, product_id), PRODUCT_SK


# --- index keys ------------------------------------------------------------------------------------------------


def order_position(date: str | None, order_id: str) -> str:
    """The sort key of an order in every list of orders by date: ``<date>#<oid>`` (no date sorts first)."""
    return f"{date or ''}#{order_id}"


# The partitions of the write-sharded lists, by their shape (each ``<shard>`` is ``shard_of(id, list_shards())``).
status_partition: Final[Callable[[str, int], str]] = "{}#{}".format  # ``<STATUS>#<shard>``
# orders and returns share ``ORDERS_BY_STATUS`` (an overloaded index), each under its own partitions
return_status_partition: Final[Callable[[str, int], str]] = "RETURN#{}#{}".format
catalogue_partition: Final[Callable[[int], str]] = "CATALOGUE#{}".format
# every customer: by id in ``ORDERS_BY_STATUS``, by name in ``CATALOGUE``
customers_partition: Final[Callable[[int], str]] = "CUSTOMERS#{}".format
category_partition: Final[Callable[[str, int], str]] = "cat#{}#{}".format  # ``cat#<category>#<shard>``
activity_partition: Final[Callable[[int], str]] = "ACTIVITY#{}".format
user_activity_partition: Final[Callable[[str], str]] = "USER#{}".format
kind_activity_partition: Final[Callable[[str, int], str]] = "KIND#{}#{}".format


def return_position(requested: str | None, return_id: str) -> str:
    return f"{requested or ''}#{return_id}"


def name_position(name: str | None, customer_id: str) -> str:
    return f"{normalized(name or '')[:MAX_CATEGORY]}#{customer_id}"


# --- entries ---------------------------------------------------------------------------------------------------

CUSTOMER_ORDER_PREFIX: Final = "o#"


def customer_order(customer_id: str, date: str | None, order_id: str) -> Key:
    return keys.with_prefix(keys.CUSTOMER, customer_id), CUSTOMER_ORDER_PREFIX + order_position(date, order_id)


CUSTOMER_RETURN_PREFIX: Final = "r#"


def customer_return(customer_id: str, requested: str | None, return_id: str) -> Key:
    return keys.with_prefix(keys.CUSTOMER, customer_id), CUSTOMER_RETURN_PREFIX + return_position(requested, return_id)


def transaction_key(transaction_id: str) -> str:
    """A payment's provider reference as a key: whitespace trimmed, case ignored."""
    return "t#" + transaction_id.strip().lower()


def payment(transaction_id: str, order_id: str) -> Key:
    return transaction_key(transaction_id), keys.with_prefix(keys.ORDER, order_id)


def category_name(value: str | None) -> str:
    """An order line's category as the numbers and the category lists name it (``uncategorized``: none)."""
    text = (value or "").strip()
    return text[:MAX_CATEGORY] if text else UNCATEGORIZED


def category_order(category: str, shard: int, date: str, order_id: str) -> Key:
    return category_partition(category, shard), order_position(date, order_id)


SEARCH_PREFIX: Final = "s#"
MIN_SEARCH: Final = 2
MAX_COVERING_TERM: Final = keys.MAX_EMAIL  # a term that stands for those it starts with: its entry's key fits


def words_of(text: str | None) -> list[str]:
    """Text as search splits it: normalized, then cut at anything that is not a letter or digit (so an email falls
    into its parts at ``@ . _ - +``), every word kept whatever its length."""
    return "".join(c if c.isalnum() else " " for c in normalized(text or "")).split()


def search_words(*texts: str | None) -> set[str]:
    """The words a name (or an email's parts) is found by: ``words_of`` each text; words shorter than
    ``MIN_SEARCH`` get no entry (a search's one-letter word is matched against the entry's stored name instead)."""
    return {word for text in texts for word in words_of(text) if len(word) >= MIN_SEARCH}


def customer_terms(name: str | None, email: str | None) -> set[str]:
    """A customer's search terms: the words of the name, the parts of the email, and the whole email (the exact
    email lookup reads that one); a term another of them starts with gets no entry of its own, since the longer
    term's entry is in the same partition and a word search's ``begins_with`` finds it (``docs/admin-view.md``)."""
    terms = search_words(name, email)
    if email and email.strip():
        terms.add(normalized(email))
    covering = [term for term in terms if len(term.encode()) <= MAX_COVERING_TERM]
    return {term for term in terms if not any(other != term and other.startswith(term) for other in covering)}


def tracking_term(tracking_number: str | None) -> str:
    """A tracking number as an order's search term: case, accents and separators (spaces, dashes) ignored."""
    return "".join(words_of(tracking_number))


def order_terms(tracking_numbers: list[str | None]) -> set[str]:
    """An order's search terms: its shipments' tracking numbers (``tracking_term``), each once."""
    return {term for number in tracking_numbers if len(term := tracking_term(number)) >= MIN_SEARCH}


def matches(searched: list[str], found: list[str]) -> bool:
    """Whether every searched word starts one of the found words (``words_of`` both): "grace hop" and
    "hopper grace" match Grace Hopper."""
    return all(any(word.startswith(part) for word in found) for part in searched)


def normalized(text: str) -> str:
    """Text as search compares it: lower-cased, accents dropped, surrounding whitespace trimmed."""
    decomposed = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def search_partition(term: str) -> str:
    """Words (and searches) that share their first two letters share a partition, so a search is one Query."""
    return SEARCH_PREFIX + term[:MIN_SEARCH]


def search_entry(term: str, kind: str, entity_id: str) -> Key:
    return search_partition(term), f"{term}#{kind}#{entity_id}"


ACTIVITY_KINDS: Final = ("order", "customer", "product", "stock", "warehouse", "system")


def activity_kind(source_pk: str, action: str | None) -> str:
    """What a staff change changed, from its audit entry's partition and action (``system``: a dead-letter replay)."""
    head = source_pk.split("#", 1)[0] + "#"
    if head == keys.PRODUCT:
        # the actions of stock edits (shop.editing) are audited in the product's partition too
        return "stock" if (action or "").startswith("stock-") else "product"
    return {keys.ORDER: "order", keys.CUSTOMER: "customer", keys.WAREHOUSE: "warehouse"}.get(head, "system")


def activity_entries(source_pk: str, position: str, user: str, kind: str, shard: int) -> list[Key]:
    """The three lists a staff change is in (``position``: ``<at>#<id>``): all changes, its user's, its kind's."""
    partitions = (activity_partition(shard), user_activity_partition(user), kind_activity_partition(kind, shard))
    return [(pk, position) for pk in partitions]


# --- sums ------------------------------------------------------------------------------------------------------

STATS_PREFIX: Final = "STATS#"
BUYERS_PREFIX: Final = "b#"
CHANGED_AT: Final = "At"  # every sum notes when it last changed (a verify leaves sums that moved while it ran)
ORDERS, CANCELLED_ORDERS, UNITS, REVENUE, PRODUCTS = "Orders", "Cancelled", "Units", "Revenue", "Products"
REFUNDS_COUNT, REFUNDED = "Refunds", "Refunded"
RESTOCKED, DAMAGED = "Restocked", "Damaged"  # a product's units received back: put back in stock, or not
RETURNED_FIGURES: Final = (UNITS, RESTOCKED, DAMAGED)
RETURNS_REFUNDED: Final = "ReturnsRefunded"  # the part of ``Refunded`` paid back for returned goods
CATEGORY_SEP: Final = ":"  # a day's per-category sums: ``Units:<category>``, ``Revenue:<category>``


def status_counts(shard: int) -> Key:
    return f"{STATS_PREFIX}status#{shard}", "counts"


def day_sums(shard: int, day: str) -> Key:
    return f"{STATS_PREFIX}day#{shard}", day


def product_month_sums(product_id: str, shard: int, month: str) -> Key:
    return f"{STATS_PREFIX}product#{product_id}#{shard}", month


def returned_units(product_id: str, shard: int, month: str) -> Key:
    """Units received back, by the month the return was requested."""
    return f"{STATS_PREFIX}returned#{product_id}#{shard}", month


def refunds_day(shard: int, day: str) -> Key:
    return f"{STATS_PREFIX}refunds#{shard}", day


def category_counts(shard: int, category: str) -> Key:
    return f"{STATS_PREFIX}categories#{shard}", category


def buyers(product_id: str, customer_id: str) -> Key:
    """AV3: ``Orders`` counts the customer's orders holding the product that are not cancelled."""
    return BUYERS_PREFIX + product_id, keys.with_prefix(keys.CUSTOMER, customer_id)


def customer_refunded(customer_id: str) -> Key:
    """Every refund naming the customer, whatever its order; not sharded: one customer's refunds are few."""
    return keys.with_prefix(keys.CUSTOMER, customer_id), CUSTOMER_REFUNDED_SK


def is_customer_sum(key: Key) -> bool:
    return key[1] == CUSTOMER_REFUNDED_SK and key[0].startswith(keys.CUSTOMER)


def is_sum(key: Key) -> bool:
    return key[0].startswith(STATS_PREFIX) or key[0].startswith(BUYERS_PREFIX) or is_customer_sum(key)


def is_totalled(key: Key) -> bool:
    """A sum a walk checks against the total of every counted item (the buyer relations are checked per customer
    instead: there are too many to hold)."""
    return key[0].startswith(STATS_PREFIX) or is_customer_sum(key)


RETURN_STEPS: Final = ("Approved", "Rejected", "Received", "Refunded")  # a return's step times, as the service writes

# --- each kind of item, declared once: its attributes, how it is built and how it reads back ----------------------

T = TypeVar("T")


def _decimal(value: Any) -> Decimal | None:
    try:
        return Decimal(text) if (text := values.as_text(value)) else None
    except InvalidOperation:
        return None


def _whole(value: Any) -> int | None:
    number = _decimal(value)
    return int(number) if number is not None and number == number.to_integral_value() else None


def timestamp(value: Any) -> datetime | None:
    try:
        return parse_ts(text) if (text := values.as_string(value)) else None
    except ValueError:
        return None


READERS: Final[dict[type, Callable[[Any], Any]]] = {
    str: values.as_text,  # AWS's model keeps some numbers as strings (``Price``): either reads as text
    Decimal: _decimal,
    int: _whole,
    datetime: timestamp,
    dict: lambda value: values.entries(value) if value is not None else None,
    list: lambda value: values.elements(value) if value is not None else None,
}
"""How a stored value reads as each attribute type: a value of another type (or malformed) reads as None."""


@dataclass(frozen=True)
class Attribute:
    """One attribute of a kind: its stored name, the type it reads as, its row's field (the name in snake case
    unless given) and what a missing value reads as."""

    name: str
    type: type = str
    field: str = ""
    default: Any = None
    read: Callable[[Any], Any] | None = None  # instead of the type's reader

    def __post_init__(self) -> None:
        if not self.field:
            object.__setattr__(self, "field", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", self.name).lower())


@dataclass(frozen=True)
class Kind(Generic[T]):
    """A kind of view item (ElectroDB's entity, PynamoDB's model): ``item`` builds one from plain values, ``read``
    reads a stored one back as its row."""

    name: str
    row: Callable[..., T]
    attributes: tuple[Attribute, ...]
    indexes: tuple[Index, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes)

    @cached_property
    def by_field(self) -> dict[str, str]:
        return {a.field: a.name for a in self.attributes}

    def attribute(self, field: str) -> str:
        """The stored name of the attribute a row field reads."""
        return self.by_field[field]

    def item(self, key: Key, **given: Any) -> Item:
        """The item at ``key`` with the given fields' values but None (``TypeError`` for a field it has not)."""
        item: Item = {**values.key(*key), KIND: self.name}
        for name, value in given.items():
            if name not in self.by_field:
                raise TypeError(f"{self.name} has no attribute {name!r}")
            if value is not None:
                item[self.by_field[name]] = value
        return item

    def read(self, item: Mapping[str, Any] | None, **extra: Any) -> T:
        """The row an item reads as (a missing item reads as every default); ``extra``: fields not stored."""
        found = item or {}
        read = ((a, (a.read or READERS[a.type])(found.get(a.name))) for a in self.attributes)
        return self.row(**{a.field: a.default if value is None else value for a, value in read}, **extra)


@dataclass(frozen=True)
class OrderRow:
    """An order as its summary (or an entry naming it) holds it."""

    order_id: str
    customer_id: str
    date: datetime | None
    status: str | None
    total: Decimal | None
    item_count: int | None
    position: str = ""  # the row's sort key in its list (the live queue asks for rows after the newest)
    # every shipment's (carrier, tracking number), oldest first, where the row was read with its ``Shipments``
    shipments: tuple[tuple[str | None, str], ...] = ()
    carrier: str | None = None  # the latest shipment's
    tracking_number: str | None = None
    version: int | None = None
    lines: dict[str, Any] | None = None
    invoices: dict[str, Any] | None = None
    paid: dict[str, Any] | None = None
    sent: dict[str, Any] | None = None
    # derived, for the lists (``adminview.reads.selectors.order_states``): shop.order_status's values
    payment_status: str | None = None
    fulfilment_status: str | None = None
    units_left: int | None = None  # of a pending order, when some have shipped


@dataclass(frozen=True)
class ProfileRow:
    name: str | None = None
    email: str | None = None
    address: dict[str, Any] | None = None


@dataclass(frozen=True)
class ProductRow:
    product_id: str
    name: str | None
    price: str | None  # as stored: AWS's decimal string
    category: str | None
    description: str | None


@dataclass(frozen=True)
class CustomerOrderRow:
    order_id: str
    date: str | None
    spent: Decimal | None
    paid: Decimal | None


@dataclass(frozen=True)
class PaymentRow:
    order_id: str
    transaction_id: str | None


@dataclass(frozen=True)
class CategoryEntryRow:
    order_id: str
    customer_id: str | None
    date: str | None
    category: str | None
    units: Decimal
    revenue: Decimal


@dataclass(frozen=True)
class SearchRow:
    term: str | None
    found: str | None
    id: str
    name: str | None
    email: str | None


@dataclass(frozen=True)
class ActivityRow:
    order_id: str
    at: datetime | None
    action: str
    user: str
    from_status: str | None
    to_status: str | None
    order_version: int | None
    request_id: str | None
    product_id: str | None
    detail: str | None
    source: str | None = None
    kind: str = ORDER  # activity_kind: order, customer, product, stock, warehouse, system
    position: str = ""
    entity_id: str | None = None  # the customer, product or warehouse an entity edit changed (bare)


@dataclass(frozen=True)
class ReturnAnchorRow:
    return_id: str
    order_id: str
    customer_id: str
    status: str | None
    requested: str | None
    lines: list[Any] | None
    approved: str | None
    rejected: str | None
    received: str | None
    refunded: str | None


@dataclass(frozen=True)
class BuyersRow:
    orders: int
    at: str | None


def _texts(*names: str) -> tuple[Attribute, ...]:
    return tuple(Attribute(name) for name in names)


def _unread(name: str, attributes: tuple[Attribute, ...]) -> Kind[Any]:
    """A kind no reader takes apart field by field: its row is made from its attributes."""
    fields = [(a.field, Any, field(default=a.default)) for a in attributes]
    return Kind(name, make_dataclass(f"{name.title().replace('-', '')}Row", fields, frozen=True), attributes)


_ORDER_ID, _CUSTOMER_ID = Attribute("OrderId", default=""), Attribute("CustomerId", default="")
_STATUS, _DATE, _RETURN_ID = Attribute("Status"), Attribute("Date"), Attribute("ReturnId", default="")
ORDER_ID, CUSTOMER_ID, STATUS = _ORDER_ID.name, _CUSTOMER_ID.name, _STATUS.name
_MAPS = (Attribute("Lines", dict), Attribute("Invoices", dict), Attribute("Shipments", dict))
# what the order's payment and fulfilment status follow from: each invoice's payments' sum, each shipment item's units
_SETTLED = (Attribute("Paid", dict), Attribute("Sent", dict))
_ORDER_FACTS = (Attribute("Date", datetime), _STATUS, Attribute("Total", Decimal), Attribute("ItemCount", int))
ORDER_ROW_ATTRIBUTES: Final = (_ORDER_ID, _CUSTOMER_ID, *_ORDER_FACTS)
SHIPPED_BY: Final = _texts("Carrier", "TrackingNumber")
_PRODUCT_FACTS = (Attribute("ProductId", default=""), *_texts("Name", "Price", "Category", "Description"))
ORDER_ROW: Final = tuple(a.name for a in ORDER_ROW_ATTRIBUTES)
CATALOGUE_ROW: Final = tuple(a.name for a in _PRODUCT_FACTS)

# Index names are those of tables already deployed (a name cannot change in place).
ORDERS_BY_STATUS: Final = Index("GSI1", "GSI1PK", "GSI1SK", ORDER_ROW)
"""AV2 and the other status lists: sparse (an order is in it while its status is listed), write-sharded; every
customer by id too (``customers_partition``)."""
CATALOGUE: Final = Index("GSI8", "GSI8PK", "GSI8SK", CATALOGUE_ROW)
"""Every product by id and every customer by name: sparse (only catalogue rows and profiles), write-sharded."""
INDEXES: Final = (ORDERS_BY_STATUS, CATALOGUE)


def _shipped(value: Any) -> tuple[tuple[str | None, str], ...]:
    """An order's ``Shipments`` map as (carrier, tracking number) pairs, oldest first (shipment ids sort by time)."""
    carrier, number = (a.name for a in SHIPPED_BY)
    found = (values.entries(shipment) for _sk, shipment in sorted(values.entries(value).items()))
    return tuple(
        (values.string(facts, carrier), tracked) for facts in found if (tracked := values.string(facts, number))
    )


_VERSION = Attribute("Version", int)
ORDER_FACTS: Final = tuple(a.name for a in (*_ORDER_FACTS, _VERSION))
"""What an order's anchor copies of the order item as it is."""
_SHIPMENTS = Attribute(_MAPS[2].name, dict, read=_shipped, default=())
ORDER_KIND: Final = Kind(
    ORDER,
    OrderRow,
    (*ORDER_ROW_ATTRIBUTES, _VERSION, *SHIPPED_BY, *_MAPS[:2], _SHIPMENTS, *_SETTLED),
    (ORDERS_BY_STATUS,),
)
COLLECTION_KIND: Final = _unread(COLLECTION, (*_MAPS, *_SETTLED))
COUNTED_KIND: Final = _unread(COUNTED, (Attribute("Sums", dict), Attribute("Rev", Decimal)))
_RETURN_FACTS = (_RETURN_ID, _ORDER_ID, _CUSTOMER_ID, _STATUS, Attribute("Requested"), Attribute("Lines", list))
RETURN_KIND: Final = Kind(RETURN, ReturnAnchorRow, (*_RETURN_FACTS, *_texts(*RETURN_STEPS)), (ORDERS_BY_STATUS,))
REFUNDS_KIND: Final = _unread(REFUNDS, (_ORDER_ID, Attribute("Refunds", dict)))
CUSTOMER_RETURN_KIND: Final = _unread(CUSTOMER_RETURN, (*_RETURN_FACTS[:2], *_RETURN_FACTS[3:5]))
PROFILE_KIND: Final = Kind(
    PROFILE, ProfileRow, (*_texts("Name", "Email"), Attribute("Address", dict)), (ORDERS_BY_STATUS, CATALOGUE)
)
PRODUCT_KIND: Final = Kind(PRODUCT, ProductRow, _PRODUCT_FACTS, (CATALOGUE,))
_SPENT = (Attribute("Spent", Decimal), Attribute("Paid", Decimal))
CUSTOMER_ORDER_KIND: Final = Kind(CUSTOMER_ORDER, CustomerOrderRow, (_ORDER_ID, _DATE, *_SPENT))
PAYMENT_KIND: Final = Kind(PAYMENT, PaymentRow, (_ORDER_ID, Attribute("TransactionId")))
_SUMMED = (Attribute("Units", Decimal, default=Decimal(0)), Attribute("Revenue", Decimal, default=Decimal(0)))
CATEGORY_ORDER_KIND: Final = Kind(
    CATEGORY_ORDER, CategoryEntryRow, (_ORDER_ID, *_texts("CustomerId", "Date", "Category"), *_SUMMED)
)
_FOUND = (*_texts("Term", "Found"), Attribute("Id", default=""), *_texts("Name", "Email"))
SEARCH_KIND: Final = Kind(SEARCH, SearchRow, _FOUND)
_CHANGE = (_ORDER_ID, Attribute("Action", default=""), Attribute("User", default=""), Attribute("At", datetime))
_CHANGED = (*_texts("FromStatus", "ToStatus"), Attribute("OrderVersion", int), *_texts("RequestId", "ProductId"))
_NOTED = (*_texts("Detail", "Source"), Attribute("ActivityKind", field="kind", default=""))
ACTIVITY_KIND: Final = Kind(ACTIVITY, ActivityRow, (*_CHANGE, *_CHANGED, *_NOTED))
BUYERS_KIND: Final = Kind(BUYERS, BuyersRow, (Attribute(ORDERS, int, default=0), Attribute(CHANGED_AT, field="at")))
KINDS: Final[tuple[Kind[Any], ...]] = (
    *(ORDER_KIND, COLLECTION_KIND, COUNTED_KIND, RETURN_KIND, REFUNDS_KIND, CUSTOMER_RETURN_KIND, PROFILE_KIND),
    *(PRODUCT_KIND, CUSTOMER_ORDER_KIND, PAYMENT_KIND, CATEGORY_ORDER_KIND, SEARCH_KIND, ACTIVITY_KIND, BUYERS_KIND),
)
ATTRIBUTES: Final[dict[str, tuple[str, ...]]] = {kind.name: kind.names for kind in KINDS}
"""What each kind of item carries besides its keys, ``Kind`` and an anchor's bookkeeping."""


def columns(*kinds: str) -> tuple[str, ...]:
    """``PK``, ``SK``, ``Kind``, then every attribute items of these kinds may carry (an export's columns)."""
    found = dict.fromkeys(name for kind in kinds for name in ATTRIBUTES[kind])
    return (PK, SK, KIND, *found)


# --- write shards ----------------------------------------------------------------------------------------------

DEFAULT_SHARDS: Final = 4
MAX_SHARDS: Final = 100


shard_of = keys.shard_of  # one hash for every write shard, the shop's outbox's too


def _shards(variable: str) -> int:
    value = os.environ.get(variable)
    try:
        shards = int(value) if value else DEFAULT_SHARDS
    except ValueError as exc:
        raise ValueError(f"{variable} must be a whole number, got {value!r}") from exc
    if not 1 <= shards <= MAX_SHARDS:
        raise ValueError(f"{variable} must be 1..{MAX_SHARDS}, got {shards}")
    return shards


def sum_shard(anchor: Key) -> int:
    """The shard of the sums an anchor adds to: anchors of one shard, written together, add to the same sum items."""
    return shard_of(anchor[0], sum_shards())


def list_shards() -> int:
    """Write shards of the lists (status lists, category lists, activity, catalogue): env
    ``ADMIN_VIEW_LIST_SHARDS`` (default 4). Changing it needs ``rebuild_adminview`` (every entry moves)."""
    return _shards("ADMIN_VIEW_LIST_SHARDS")


def sum_shards() -> int:
    """Write shards of the numbers' sums: env ``ADMIN_VIEW_SUM_SHARDS`` (default 4). Changing it needs the sums
    counted again (delete the ``STATS#`` items, then ``rebuild_adminview``)."""
    return _shards("ADMIN_VIEW_SUM_SHARDS")


# --- the declaration in words ------------------------------------------------------------------------------------


class _Shard(int):
    """A write shard in a key shape: formats as ``<shard>`` wherever a key function puts a shard number."""

    def __format__(self, spec: str) -> str:
        return "<shard>"


def describe() -> str:
    """The view's item kinds and indexes as Markdown (``docs/admin-view.md`` holds it, between its ``schema``
    markers; ``python -m adminview.core.schema`` prints it). Every shape in it is what a key function above returns for
    placeholders (``<oid>``), so the docs cannot drift from the keys the code builds."""
    shard = _Shard()
    statuses = ", ".join(LISTED_STATUSES[:-1]) + " or " + LISTED_STATUSES[-1]
    by_status = (status_partition("<STATUS>", shard), order_position("<date>", "<oid>"))
    return_by_status = (return_status_partition("<STATUS>", shard), return_position("<requested>", "<rid>"))
    in_catalogue = (catalogue_partition(shard), "<pid>")
    by_name = (customers_partition(shard), name_position("<name>", "<cid>"))
    by_id = f"`{customers_partition(shard)}` / `<cid>`"
    by_category = (n + CATEGORY_SEP + "<category>" for n in (UNITS, REVENUE))
    day_figures = (ORDERS, CANCELLED_ORDERS, UNITS, REVENUE, *by_category)
    # kind, role, its keys, the index keys it carries (index, key) and when, what it holds (ATTRIBUTES, else named)
    Row = tuple[str, str, list[Key], tuple[Index, Key] | None, str, tuple[str, ...]]
    rows: list[Row] = [
        (ORDER, "anchor", [order_anchor("<oid>")], (ORDERS_BY_STATUS, by_status), f"while {statuses}", ()),
        (COLLECTION, "anchor while the order item is missing", [order_anchor("<oid>")], None, "", ()),
        (RETURN, "anchor", [return_anchor(return_keys.RETURN + "<rid>")], (ORDERS_BY_STATUS, return_by_status), "", ()),
        (REFUNDS, "anchor", [refunds_anchor("<oid>")], None, "", ()),
        (PROFILE, "anchor", [profile("<cid>")], (CATALOGUE, by_name), f"and `{ORDERS_BY_STATUS.name}`: {by_id}", ()),
        (PRODUCT, "anchor", [product("<pid>")], (CATALOGUE, in_catalogue), "", ()),
        (COUNTED, "counted", [counted(("<anchor PK>", "<anchor SK>"))], None, "", ()),
        (CUSTOMER_ORDER, "entry", [customer_order("<cid>", "<date>", "<oid>")], None, "", ()),
        (CUSTOMER_RETURN, "entry", [customer_return("<cid>", "<requested>", "<rid>")], None, "", ()),
        (PAYMENT, "entry", [payment("<transaction id>", "<oid>")], None, "", ()),
        (CATEGORY_ORDER, "entry", [category_order("<category>", shard, "<date>", "<oid>")], None, "", ()),
        (SEARCH, "entry (the word `anna`)", [search_entry("anna", "customer", "<cid>")], None, "", ()),
        (ACTIVITY, "entry", activity_entries("<audit PK>", "<at>#<id>", "<user>", "<kind>", shard), None, "", ()),
        (COUNTER, "sum", [status_counts(shard)], None, "", tuple(OrderStatus)),
        (COUNTER, "sum", [day_sums(shard, "<YYYY-MM-DD>")], None, "", day_figures),
        (COUNTER, "sum", [product_month_sums("<pid>", shard, "<YYYY-MM>")], None, "", (UNITS, REVENUE)),
        (COUNTER, "sum", [returned_units("<pid>", shard, "<YYYY-MM>")], None, "", RETURNED_FIGURES),
        (COUNTER, "sum", [refunds_day(shard, "<YYYY-MM-DD>")], None, "", (REFUNDS_COUNT, REFUNDED, RETURNS_REFUNDED)),
        (COUNTER, "sum", [category_counts(shard, "<category>")], None, "", (PRODUCTS,)),
        (COUNTER, "sum", [customer_refunded("<cid>")], None, "", (REFUNDED,)),
        (BUYERS, "sum", [buyers("<pid>", "<cid>")], None, "", ()),
    ]

    def code(*texts: str) -> str:
        return ", ".join(f"`{text}`" for text in dict.fromkeys(texts))

    def pair(key: Key) -> str:
        return f"{code(key[0])} / {code(key[1])}"

    lines = ["| kind | role | PK | SK | index keys | holds |", "|---|---|---|---|---|---|"]
    for kind, role, item_keys, carried, when, named in rows:
        holds = named or ATTRIBUTES[kind]
        if role == "sum" and CHANGED_AT not in holds:
            holds = (*holds, CHANGED_AT)
        pks, sks = code(*(k[0] for k in item_keys)), code(*(k[1] for k in item_keys))
        indexed = f"{code(carried[0].name)}: {pair(carried[1])} {when}".strip() if carried else ""
        lines.append(f"| `{kind}` | {role} | {pks} | {sks} | {indexed} | {code(*holds)} |")
    lines += ["", "| index | hash key / range key | lists | projects besides the keys |", "|---|---|---|---|"]
    for index in INDEXES:
        listed = "; ".join(
            f"{kind}: {pair(carried[1])}" for kind, _, _, carried, _, _ in rows if carried and carried[0] == index
        )
        lines.append(
            f"| {code(index.name)} | {code(index.hash_key)} / {code(index.range_key)} | {listed} | "
            f"{code(*index.projected)} |"
        )
    lines += [
        "",
        f"`<shard>`: a write shard (`shard_of`), 0 to n - 1, n = `list_shards()` in a list and `sum_shards()` in a "
        f"sum (the adding anchor's: `sum_shard`), each {DEFAULT_SHARDS} unless set, at most {MAX_SHARDS}. Ids are "
        "bare (`<oid>`: `42`).",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(describe(), end="")
