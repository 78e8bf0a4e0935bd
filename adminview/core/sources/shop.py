"""The shop table as a source of the admin view: an order's collection (``o#<oid>``: the order, its lines, invoices,
shipments and shipment items) is anchored on the order's summary, a customer on its profile, a product on its
catalogue row; an audit entry, never changed once written, implies its activity entries alone; everything else
(stock, warehouses, favourites, email claims) implies nothing for the view.

Images may lack any attribute we added (AWS's sample has no ``Status``, ``Total``...): a missing attribute is
simply missing in the view; an unknown status is in no list. A value that must be parsed and is malformed
(``ItemCount`` that is not a whole number) raises ``ValueError``: the record fails and is dead-lettered.
"""

from __future__ import annotations

from copy import copy
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from adminview.core import numbers, schema, values
from adminview.core.anchor import Implied
from adminview.core.sources.shared import Anchored, AnchoredSource, AnchorKind, Copied, OrderPartitions
from adminview.core.values import Item
from shop import keys
from shop.keys import OrderStatus

ORDER_ENTITIES = ("order", "orderItem", "invoice", "shipment", "shipmentItem")
LINES, INVOICES, SHIPMENTS, PAID, SENT = (
    schema.ORDER_KIND.attribute(name) for name in ("lines", "invoices", "shipments", "paid", "sent")
)
PRODUCT_ID, QUANTITY = "ProductId", "Quantity"
LINE_FACTS = ("Quantity", "Price", "Category", "WarehouseId")
SHIPMENT_FACTS = tuple(a.name for a in schema.SHIPPED_BY)
CARRIER, TRACKING_NUMBER = SHIPMENT_FACTS
STATUSES = frozenset(OrderStatus)
ONE = Decimal(1)


# --- an order's collection -------------------------------------------------------------------------------------


@dataclass
class OrderState(Anchored):
    """An order's collection as its anchor holds it: the order item's facts, and its other items', by shop SK."""

    customer_id: str | None = None
    order: Item | None = None  # the summary's facts (schema.ORDER_FACTS present) while the order item is there
    lines: dict[str, Item] = field(default_factory=dict)  # p#<pid> -> LINE_FACTS
    invoices: dict[str, list[str]] = field(default_factory=dict)  # i#<iid> -> transaction ids
    shipments: dict[str, Item] = field(default_factory=dict)  # sh#<sid> -> SHIPMENT_FACTS
    paid: dict[str, Decimal] = field(default_factory=dict)  # i#<iid> -> what its payments add up to
    sent: dict[str, Item] = field(default_factory=dict)  # shp#<id> -> its ProductId and Quantity
    stub_kind: str = schema.COLLECTION
    PREFIX = keys.ORDER

    def load(self, item: Item) -> None:
        if values.string(item, schema.KIND) == schema.ORDER:
            self.customer_id = values.string(item, schema.CUSTOMER_ID)
            self.order = {name: item[name] for name in schema.ORDER_FACTS if name in item}
        self.lines = {sk: values.entries(v) for sk, v in values.mapping(item, LINES).items()}
        self.invoices = {
            sk: [t for v in values.elements(value) if (t := values.as_string(v)) is not None]
            for sk, value in values.mapping(item, INVOICES).items()
        }
        self.shipments = {sk: values.entries(v) for sk, v in values.mapping(item, SHIPMENTS).items()}
        self.paid = {sk: numbers.decimal_of(values.as_text(v)) for sk, v in values.mapping(item, PAID).items()}
        self.sent = {sk: values.entries(v) for sk, v in values.mapping(item, SENT).items()}

    def apply(self, sk: str, image: Item | None) -> None:
        if sk.startswith(keys.CUSTOMER):
            self.customer_id = keys.without_prefix(sk, keys.CUSTOMER) if image is not None else None
            self.order = _order_facts(image) if image is not None else None
        elif sk.startswith(keys.PRODUCT):
            _put(self.lines, sk, {n: image[n] for n in LINE_FACTS if n in image} if image is not None else None)
        elif sk.startswith(keys.INVOICE):
            _put(self.invoices, sk, transaction_ids(image) if image is not None else None)
            _put(self.paid, sk, paid_of(image) if image is not None else None)
        elif sk.startswith(keys.SHIPMENT):
            facts = {n: image[n] for n in SHIPMENT_FACTS if n in image} if image is not None else None
            _put(self.shipments, sk, facts)
        elif sk.startswith(keys.SHIPMENT_ITEM):
            _put(self.sent, sk, sent_of(image) if image is not None else None)

    def source_keys(self) -> list[str]:
        held = (
            [keys.with_prefix(keys.CUSTOMER, self.customer_id)] if self.order is not None and self.customer_id else []
        )
        return held + sorted([*self.lines, *self.invoices, *self.shipments, *self.sent])

    def implied(self, list_shards: int) -> Implied:
        if self.order is None and not (self.lines or self.invoices or self.shipments or self.sent):
            return Implied(self.key, None, {}, {})
        anchor = (schema.ORDER_KIND if self.order is not None else schema.COLLECTION_KIND).item(self.key)
        entries: dict[schema.Key, Item] = {}
        for txid in dict.fromkeys(t for ids in self.invoices.values() for t in ids):
            key = schema.payment(txid, self.id)
            entries[key] = schema.PAYMENT_KIND.item(key, order_id=self.id, transaction_id=txid)
        tracking = schema.order_terms([values.string(facts, TRACKING_NUMBER) for facts in self.shipments.values()])
        entries |= _search(tracking, "order", self.id)
        if self.order is not None and self.customer_id is not None:
            self._summary(anchor, list_shards)
            entries |= self._order_entries(list_shards)
        held: dict[str, dict[str, Any]] = {LINES: self.lines, INVOICES: self.invoices, SHIPMENTS: self.shipments}
        held[PAID] = self.paid
        # what each shipment item sent is only read while the order waits to ship all of it (order_status)
        if values.string(self.order, schema.STATUS) not in keys.SHIPPED_WHOLE:
            held[SENT] = self.sent
        anchor |= {name: {sk: copy(v) for sk, v in sorted(facts.items())} for name, facts in held.items() if facts}
        return Implied(self.key, anchor, entries, self.sums())

    def _summary(self, anchor: Item, list_shards: int) -> None:
        assert self.order is not None and self.customer_id is not None
        anchor[schema.ORDER_ID], anchor[schema.CUSTOMER_ID] = self.id, self.customer_id
        anchor.update(self.order)
        status = values.string(self.order, schema.STATUS)
        if status in schema.LISTED_STATUSES:  # sparse: the keys are there exactly while the status is listed
            index = schema.ORDERS_BY_STATUS
            shard = schema.shard_of(self.id, list_shards)
            anchor[index.hash_key] = schema.status_partition(str(status), shard)
            anchor[index.range_key] = schema.order_position(self.date, self.id)
        latest = self._latest_shipment()
        if latest:
            anchor.update(latest)

    @property
    def date(self) -> str | None:
        return values.string(self.order, schema.ORDER_KIND.attribute("date"))

    @property
    def spent(self) -> Any:
        """What the order spent: its ``Total`` as stored, none once cancelled (nor without a total). It changes only
        when the order is cancelled or its total edited, so the entry is rarely written again (unlike ``Status``)."""
        assert self.order is not None
        if values.string(self.order, schema.STATUS) == OrderStatus.CANCELLED:
            return None
        return self.order.get(schema.ORDER_KIND.attribute("total"))

    def _latest_shipment(self) -> Item:
        """The carrier and tracking number of the last shipment that has them (shipment ids sort by time)."""
        return next((facts for _sk, facts in sorted(self.shipments.items(), reverse=True) if facts), {})

    def _order_entries(self, list_shards: int) -> dict[schema.Key, Item]:
        """The order in its customer's list (the customer's totals sum it) and in its categories' lists."""
        assert self.customer_id is not None
        key = schema.customer_order(self.customer_id, self.date, self.id)
        paid = sum(self.paid.values(), Decimal(0)) or None
        order = {"order_id": self.id, "date": self.date}
        entries = {key: schema.CUSTOMER_ORDER_KIND.item(key, **order, spent=self.spent, paid=paid)}
        if self.date is None:
            return entries
        shard = schema.shard_of(self.id, list_shards)
        for category, (units, revenue) in sorted(self._by_category().items()):
            key = schema.category_order(category, shard, self.date, self.id)
            figures = {"category": category, "units": units, "revenue": revenue}
            entries[key] = schema.CATEGORY_ORDER_KIND.item(key, **order, customer_id=self.customer_id, **figures)
        return entries

    def _by_category(self) -> dict[str, tuple[Decimal, Decimal]]:
        totals: dict[str, tuple[Decimal, Decimal]] = {}
        for line in self._lines():
            units, revenue = totals.get(line.category, (Decimal(0), Decimal(0)))
            totals[line.category] = (units + line.units, revenue + line.revenue)
        return totals

    def _lines(self) -> list[Line]:
        found = []
        for sk, facts in sorted(self.lines.items()):
            units = numbers.decimal_of(values.text(facts, "Quantity"))
            price = numbers.decimal_of(values.text(facts, "Price"))
            category = schema.category_name(values.text(facts, "Category"))
            found.append(Line(keys.without_prefix(sk, keys.PRODUCT) or sk, category, units, units * price))
        return found

    def sums(self) -> numbers.Sums:
        """Nothing until the order item is there; a cancelled order counts only in its status and day."""
        if self.order is None or self.customer_id is None:
            return {}
        adding = numbers.Adding()
        shard = schema.sum_shard(self.key)
        status = values.string(self.order, schema.STATUS)
        if status in STATUSES:
            adding.add(schema.status_counts(shard), str(status), ONE)
        day = numbers.day_of(self.date)
        if day is not None:
            adding.add(schema.day_sums(shard, day), schema.ORDERS, ONE)
        if status == OrderStatus.CANCELLED:
            if day is not None:
                adding.add(schema.day_sums(shard, day), schema.CANCELLED_ORDERS, ONE)
            return adding.sums
        for line in self._lines():
            adding.add(schema.buyers(line.product_id, self.customer_id), schema.ORDERS, ONE)
            if day is None:
                continue
            for name, value in ((schema.UNITS, line.units), (schema.REVENUE, line.revenue)):
                adding.add(schema.day_sums(shard, day), name, value)
                adding.add(schema.day_sums(shard, day), name + schema.CATEGORY_SEP + line.category, value)
                adding.add(schema.product_month_sums(line.product_id, shard, day[:7]), name, value)
        return adding.sums


@dataclass(frozen=True)
class Line:
    """An order line as the numbers read it."""

    product_id: str
    category: str
    units: Decimal
    revenue: Decimal


def _order_facts(image: Item) -> Item:
    """The order item's attributes the summary shows; ``ItemCount`` as a number (a malformed one fails the record
    here: it cannot be listed or counted)."""
    facts = {name: image[name] for name in schema.ORDER_FACTS if name in image}
    count = values.integer(image, "ItemCount")
    if count is not None:
        facts["ItemCount"] = Decimal(count)
    return facts


def _put(facts: dict[str, Any], sk: str, value: Any) -> None:
    if value is None:
        facts.pop(sk, None)
    else:
        facts[sk] = value


def transaction_ids(image: Item) -> list[str]:
    """The payment references (``TransactionId``) of an invoice's payments, each once, in order."""
    found: list[str] = []
    for payment in values.listing(values.mapping(image, "Detail"), "Payments"):
        txid = values.text(values.entries(payment), "TransactionId")
        if txid and txid.strip() and txid not in found:
            found.append(txid)
    return found


def paid_of(image: Item) -> Decimal:
    """What an invoice's payments (``Detail.Payments``' ``Amount``) add up to."""
    payments = values.listing(values.mapping(image, "Detail"), "Payments")
    return sum((numbers.decimal_of(values.text(values.entries(p), "Amount")) for p in payments), Decimal(0))


def sent_of(image: Item) -> Item:
    """A shipment item's product (its ``GSI1-SK``: ``p#<pid>``) and units."""
    product = keys.without_prefix(values.string(image, "GSI1-SK") or "", keys.PRODUCT)
    return {PRODUCT_ID: product or "", QUANTITY: Decimal(values.integer(image, QUANTITY) or 0)}


# --- customers and products ------------------------------------------------------------------------------------


@dataclass
class ProfileState(Copied):
    stub_kind: str = schema.PROFILE
    PREFIX, NAMES = keys.CUSTOMER, schema.PROFILE_KIND.names

    def implied(self, list_shards: int) -> Implied:
        if self.facts is None:
            return Implied(self.key, None)
        profile = schema.PROFILE_KIND.read(self.facts)
        terms = schema.customer_terms(profile.name, profile.email)
        everyone = schema.customers_partition(schema.shard_of(self.id, list_shards))
        row = {**schema.PROFILE_KIND.item(self.key), **self.facts}
        row[schema.ORDERS_BY_STATUS.hash_key] = row[schema.CATALOGUE.hash_key] = everyone
        row[schema.ORDERS_BY_STATUS.range_key] = self.id
        row[schema.CATALOGUE.range_key] = schema.name_position(profile.name, self.id)
        return Implied(self.key, row, _search(terms, "customer", self.id, profile.name, profile.email))


@dataclass
class ProductState(Copied):
    """A catalogue row: the product item's attributes the catalogue shows (``Detail``'s name and description)."""

    stub_kind: str = schema.PRODUCT
    PREFIX, NAMES = keys.PRODUCT, schema.CATALOGUE_ROW

    def apply(self, sk: str, image: Item | None) -> None:
        if image is None:
            self.facts = None
            return
        detail = values.mapping(image, "Detail")
        name, description = values.text(detail, "Name"), values.text(detail, "Description")
        row = (self.id, name, values.text(image, "Price"), values.text(image, "Category"), description)
        self.facts = {n: value for n, value in zip(schema.CATALOGUE_ROW, row, strict=True) if value is not None}

    def sums(self) -> numbers.Sums:
        """One product in its category (a product without one is in none)."""
        category = (values.string(self.facts, "Category") or "").strip() if self.facts else ""
        if not category:
            return {}
        key = schema.category_counts(schema.sum_shard(self.key), schema.category_name(category))
        return {key: {schema.PRODUCTS: ONE}}

    def implied(self, list_shards: int) -> Implied:
        if self.facts is None:
            return Implied(self.key, None, sums={})
        index = schema.CATALOGUE
        row = {**schema.PRODUCT_KIND.item(self.key), **self.facts}
        row[index.hash_key] = schema.catalogue_partition(schema.shard_of(self.id, list_shards))
        row[index.range_key] = self.id
        name = schema.PRODUCT_KIND.read(self.facts).name
        return Implied(self.key, row, _search(schema.search_words(name), "product", self.id, name), self.sums())


def _search(
    terms: set[str], kind: str, entity_id: str, name: str | None = None, email: str | None = None
) -> dict[schema.Key, Item]:
    entries = {}
    for term in sorted(terms):
        key = schema.search_entry(term, kind, entity_id)
        if len(key[1].encode()) <= schema.MAX_KEY_BYTES:
            entries[key] = schema.SEARCH_KIND.item(key, term=term, found=kind, id=entity_id, name=name, email=email)
    return entries


# --- staff activity -------------------------------------------------------------------------------------------

COPIED = ("order_id", "action", "user", "at", "from_status", "to_status", "request_id", "product_id", "detail")
"""The activity entry's fields copied as text from the audit entry's attributes of the same names."""


def activity_items(key: schema.Key, image: Item, list_shards: int) -> list[Item]:
    """A staff change (the shop's audit entry: an order's, or an entity edit's) in its three lists."""
    pk, sk = key
    entry = schema.ACTIVITY_KIND
    given: dict[str, Any] = {name: values.text(image, entry.attribute(name)) for name in COPIED}
    position, user, action = keys.after_audit(sk), given["user"], given["action"]
    if not position or not user or not action:
        return []
    kind = schema.activity_kind(pk, action)
    given["order_id"] = given["order_id"] or keys.without_prefix(pk, keys.ORDER)
    version = values.integer(image, entry.attribute("order_version"))
    given.update(order_version=Decimal(version) if version is not None else None, source=pk, kind=kind)
    shard = schema.shard_of(position, list_shards)
    return [entry.item(k, **given) for k in schema.activity_entries(pk, position, user, kind, shard)]


def audit_source(item: Item) -> schema.Key | None:
    """The audit entry an activity entry follows from (its shop key)."""
    source, position = schema.ACTIVITY_KIND.read(item).source, values.item_key(item)[1]
    return (source, keys.AUDIT + position) if source else None


# --- the source ------------------------------------------------------------------------------------------------

SEARCHED = {"customer": schema.profile, "product": schema.product, "order": schema.order_anchor}
"""The anchor of what a search entry finds, by its ``Found``."""


class ShopSource(AnchoredSource):
    name = "shop"
    table_name = staticmethod(keys.table_name)
    ANCHORS = (
        AnchorKind(keys.ORDER, schema.ORDER_SK, OrderState, ORDER_ENTITIES, items=""),
        AnchorKind(keys.CUSTOMER, schema.PROFILE_SK, ProfileState, ("customer",)),
        AnchorKind(keys.PRODUCT, schema.PRODUCT_SK, ProductState, ("product",)),
    )

    def free_items(self, key: schema.Key, image: Item, list_shards: int) -> list[Item]:
        if values.string(image, keys.ENTITY_TYPE) == "audit":
            return activity_items(key, image, list_shards)
        return []

    def free_item_source(self, item: Item) -> schema.Key | None:
        return audit_source(item) if values.string(item, schema.KIND) == schema.ACTIVITY else None

    def order_partitions(self, order_id: str) -> OrderPartitions:
        """The order's partition: the order, its lines, invoices, shipments and audit entries."""
        return OrderPartitions((keys.order(order_id),))

    def entry_anchor(self, item: Item) -> schema.Key | None:
        kind = values.string(item, schema.KIND)
        if kind in (schema.CUSTOMER_ORDER, schema.PAYMENT, schema.CATEGORY_ORDER):
            order_id = values.string(item, schema.ORDER_ID)
            return schema.order_anchor(order_id) if order_id else None
        entry = schema.SEARCH_KIND.read(item)
        anchored = SEARCHED.get(entry.found or "") if kind == schema.SEARCH and entry.id else None
        return anchored(entry.id) if anchored else None

    def counts(self, anchor: schema.Key) -> bool:
        return anchor[1] in (schema.ORDER_SK, schema.PRODUCT_SK)


SOURCE = ShopSource()
