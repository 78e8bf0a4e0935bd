"""Anchors: the one view item per group of shop items that records what the sync has applied to the view.

The sync applies a stream record only if it is newer than the last record applied for the same shop item, so a
replayed, repeated or stale record changes nothing. Those sequence numbers live on a view item the sync writes
anyway, the group's anchor, instead of one extra item per shop item:

- an order's collection (the order, its items and its invoices, all in the shop partition ``o#<oid>``) is
  anchored on the order's summary (``o#<oid>`` / ``#order``). The summary also holds what the collection's other
  view items follow from: each line's customer, quantity, price and category (``Lines``) and each invoice's
  payment references (``Invoices``). So the buyer relations, the payment references and the order's figures are
  a pure function of that one item (``State.items``), whatever order the collection's records arrive in; so are
  its category entries (the category index: a category's orders by date).
  Before the order itself has arrived (or after it was removed) the anchor is a stub of kind ``collection``: it
  is in no index.
- a customer is anchored on its profile (``c#<cid>`` / ``#profile``); a removed customer leaves a stub that
  only keeps its sequence numbers (``Gone``), so a replayed older record cannot bring the profile back.
- a product is anchored on its catalogue row (``p#<pid>`` / ``#product``) in the same way: staff edit products,
  so an older record of one must not overwrite the row a newer one wrote.

Bookkeeping attributes, which verify does not compare and a rebuild keeps as it read them:

- ``Seqs``: shop SK -> the sequence number of the last record applied for that shop item (kept after a remove);
- ``Rev``: how many times the anchor was written. Every write of an anchor is conditioned on the ``Rev`` its
  writer read (the sync's and the rebuild's alike), so neither overwrites a change it has not seen; whoever comes
  second reads again and redoes its work (see ``adminview.watermarks``);
- ``AppliedAt``: when the sync last wrote the anchor (epoch seconds; a rebuild keeps it);
- ``ExpiresAt``: set on a stub whose shop items are all gone; DynamoDB's TTL deletes it once no record it guards
  against can still be delivered (``adminview.watermarks.LIFETIME_S``).

Staff activity (audit entries) needs no anchor: an audit entry is written once and never changed, so applying
its record again writes the same items.

Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from adminview import figures, projection
from adminview.models import EXPIRES_AT, ORDER_SK, PRODUCT_SK, PROFILE_SK
from adminview.projection import Image, ViewKey
from dynamo import ddb_json
from shop import keys

SEQS, REV, GONE, LINES, INVOICES, APPLIED_AT = "Seqs", "Rev", "Gone", "Lines", "Invoices", "AppliedAt"
BOOKKEEPING = (SEQS, REV, GONE, EXPIRES_AT, APPLIED_AT)
COLLECTION_KIND = "collection"
# What an order item's view items (and the numbers) are made of: kept per line on the anchor.
LINE_FACTS = ("GSI2-PK", "Quantity", "Price", "Category")
ORDER_ENTITIES = ("order", "orderItem", "invoice")


def seq_number(seq: str) -> int:
    """Sequence numbers are decimal strings of varying length: they compare as numbers."""
    if not seq.isdigit():
        raise ValueError(f"sequence number {seq!r} is not numeric")
    return int(seq)


def anchor_key(source: ViewKey, entity: str | None) -> ViewKey | None:
    """The anchor of a shop item's view items; None for shop items that need none (no view items, or audit
    entries, which never change)."""
    pk, sk = source
    if entity in ORDER_ENTITIES and keys.without_prefix(pk, keys.ORDER):
        return pk, ORDER_SK
    if entity == "customer" and keys.without_prefix(pk, keys.CUSTOMER):
        return pk, PROFILE_SK
    if entity == "product" and keys.without_prefix(pk, keys.PRODUCT) and sk == pk:
        return pk, PRODUCT_SK
    return None


def without_bookkeeping(item: Image) -> Image:
    return {name: value for name, value in item.items() if name not in BOOKKEEPING}


def is_stub(item: Image) -> bool:
    """An anchor that describes nothing the shop holds (kept only for its sequence numbers)."""
    return GONE in item or (ddb_json.string(item, "Kind") == COLLECTION_KIND and not _has_facts(item))


def _has_facts(item: Image) -> bool:
    return bool(ddb_json.mapping(item, LINES) or ddb_json.mapping(item, INVOICES))


@dataclass
class State:
    """What the anchor says: the sequence numbers applied, its revision, and the facts its view items follow
    from. ``sources`` maps each shop SK the anchor describes to that shop item's image as far as the projection
    reads it (None: removed)."""

    key: ViewKey
    seqs: dict[str, str] = field(default_factory=dict)
    rev: int | None = None  # None: the anchor has no Rev (or there is none)
    sources: dict[str, Image | None] = field(default_factory=dict)
    stored: bool = False  # an anchor item exists
    applied_at: float | None = None  # when the sync last wrote it

    def applied(self, sk: str) -> str | None:
        return self.seqs.get(sk)

    def is_new(self, sk: str, seq: str) -> bool:
        seen = self.seqs.get(sk)
        return seen is None or seq_number(seq) > seq_number(seen)

    def apply(self, sk: str, seq: str | None, image: Image | None) -> None:
        """A record of shop item ``sk`` (its new image; None: removed). ``seq`` None: a rebuild's read of the
        shop, which knows no sequence number and leaves them as they were."""
        self.sources[sk] = _facts(image) if image is not None else None
        if seq is not None:
            self.seqs[sk] = seq

    def present(self) -> dict[str, Image]:
        return {sk: image for sk, image in self.sources.items() if image is not None}

    def items(self, shards: int) -> dict[ViewKey, Image]:
        """Every view item the anchor describes, the anchor first (with its bookkeeping)."""
        derived = self._derived(shards)
        anchor = self._bookkept(self._anchor(derived.pop(self.key, None)))
        return {self.key: anchor, **derived}

    def _of(self, entity: str) -> dict[str, Image]:
        return {sk: image for sk, image in self.present().items() if ddb_json.string(image, "EntityType") == entity}

    def _derived(self, shards: int) -> dict[ViewKey, Image]:
        """What the shop items described imply, each on its own, then joined across the order's collection:
        buyer relations follow the order's status, category entries its lines."""
        pk, sk = self.key
        images = [{**ddb_json.key(pk, source_sk), **image} for source_sk, image in sorted(self.present().items())]
        derived: dict[ViewKey, Image] = {}
        for image in images:
            for item in projection.project_item(image, shards):
                derived[ddb_json.item_key(item)] = item
        if sk != ORDER_SK:
            return derived
        summary = derived.get(self.key)
        buyers = [i for i in derived.values() if ddb_json.string(i, "Kind") == "buyer"]
        lines = [i for i in images if ddb_json.string(i, "EntityType") == "orderItem"]
        for item in [*projection.derive_buyers(summary, buyers), *projection.category_items(summary, lines, shards)]:
            derived[ddb_json.item_key(item)] = item
        return derived

    def _anchor(self, summary: Image | None) -> Image:
        """The anchor's own item: the summary or profile (a stub without one), and for an order the facts its
        other items follow from."""
        anchor = dict(summary) if summary is not None else _stub(self.key)
        if self.key[1] != ORDER_SK:
            return anchor
        lines, invoices = self._of("orderItem"), self._of("invoice")
        if lines:
            anchor[LINES] = {"M": {s: {"M": _line_facts(i)} for s, i in lines.items()}}
        if invoices:
            anchor[INVOICES] = {"M": {s: {"L": list(_payment_ids(i))} for s, i in invoices.items()}}
        return anchor

    def contribution(self) -> figures.Contribution:
        """What the order described adds to the counters (nothing for a customer's anchor)."""
        order_id = keys.without_prefix(self.key[0], keys.ORDER)
        if order_id is None or self.key[1] != ORDER_SK:
            return figures.Contribution("")
        return figures.contribution(order_id, self.present())

    def _bookkept(self, anchor: Image) -> Image:
        if self.seqs:
            anchor[SEQS] = {"M": {sk: ddb_json.s(seq) for sk, seq in sorted(self.seqs.items())}}
        anchor[REV] = ddb_json.n((self.rev or 0) + 1)
        if self.applied_at is not None:
            anchor[APPLIED_AT] = ddb_json.n(self.applied_at)
        if not self.present():
            anchor[GONE] = ddb_json.n(1)
        return anchor


def _stub(key: ViewKey) -> Image:
    kind = {ORDER_SK: COLLECTION_KIND, PRODUCT_SK: "product"}.get(key[1], "profile")
    return {**ddb_json.key(*key), "Kind": ddb_json.s(kind)}


def _facts(image: Image) -> Image:
    """The part of a shop item's image the projection reads (all of it but its keys, for an order or a
    customer, whose view item holds it anyway; a line's facts; an invoice's payment references)."""
    entity = ddb_json.string(image, "EntityType")
    if entity == "orderItem":
        return {"EntityType": ddb_json.s("orderItem"), **_line_facts(image)}
    if entity == "invoice":
        return _invoice_image(list(_payment_ids(image)))
    return {name: value for name, value in image.items() if name not in ("PK", "SK")}


def _line_facts(image: Image) -> Image:
    return {name: image[name] for name in LINE_FACTS if isinstance(image.get(name), dict)}


def _payment_ids(image: Image) -> list[Any]:
    return [ddb_json.s(txid) for txid in projection.transaction_ids(image)]


def _invoice_image(payment_ids: list[Any]) -> Image:
    payments = [{"M": {"TransactionId": txid}} for txid in payment_ids]
    return {"EntityType": ddb_json.s("invoice"), "Detail": {"M": {"Payments": {"L": payments}}}}


def read(key: ViewKey, item: Image | None) -> State:
    """The state an anchor item (as read; None when there is none) describes."""
    state = State(key)
    if item is None:
        return state
    state.stored, state.rev, state.applied_at = True, ddb_json.integer(item, REV), ddb_json.number(item, APPLIED_AT)
    seqs = ((sk, ddb_json.as_string(value)) for sk, value in ddb_json.mapping(item, SEQS).items())
    state.seqs = {sk: seq for sk, seq in seqs if seq is not None}
    if GONE in item:
        return state
    kind = ddb_json.string(item, "Kind")
    if key[1] == PROFILE_SK and kind == "profile":
        state.sources[key[0]] = _customer_image(item)
    if key[1] == PRODUCT_SK and kind == "product":
        state.sources[key[0]] = _product_image(item)
    if key[1] == ORDER_SK:
        if kind == "order":
            customer = ddb_json.string(item, "CustomerId")
            if customer is not None:
                state.sources[keys.with_prefix(keys.CUSTOMER, customer)] = _order_image(item)
        for sk, value in ddb_json.mapping(item, LINES).items():
            state.sources[sk] = {"EntityType": ddb_json.s("orderItem"), **ddb_json.entries(value)}
        for sk, value in ddb_json.mapping(item, INVOICES).items():
            state.sources[sk] = _invoice_image(ddb_json.elements(value))
    return state


def _customer_image(profile: Image) -> Image:
    """The customer attributes a profile holds (its projection reads nothing else)."""
    image: Image = {"EntityType": ddb_json.s("customer")}
    for name in ("Name", "Email"):
        if name in profile:
            image[name] = profile[name]
    return image


def _product_image(row: Image) -> Image:
    """The product attributes a catalogue row holds (its projection reads nothing else)."""
    image: Image = {"EntityType": ddb_json.s("product")}
    for name in ("Price", "Category"):
        if name in row:
            image[name] = row[name]
    detail = {name: row[name] for name in ("Name", "Description") if name in row}
    if detail:
        image["Detail"] = {"M": detail}
    return image


def _order_image(summary: Image) -> Image:
    """The order attributes a summary holds (its projection reads nothing else)."""
    image: Image = {"EntityType": ddb_json.s("order")}
    for name in ("Date", "Status", "Total", "ItemCount", "Version"):
        if name in summary:
            image[name] = summary[name]
    return image


def from_shop(key: ViewKey, shop_items: list[Image]) -> State:
    """The state the shop's items of one partition imply (a rebuild: no sequence numbers)."""
    state = State(key)
    for image in shop_items:
        source = ddb_json.maybe_key(image)
        if source is not None and anchor_key(source, ddb_json.string(image, "EntityType")) == key:
            state.apply(source[1], None, image)
    return state


def implied_view(shop_items: Iterable[Image], shards: int) -> dict[ViewKey, Image]:
    """The whole view a set of shop items implies, bookkeeping left out (what rebuild writes, verify compares)."""
    view: dict[ViewKey, Image] = {}
    grouped: dict[ViewKey, list[Image]] = {}
    for image in shop_items:
        source = ddb_json.maybe_key(image)
        key = anchor_key(source, ddb_json.string(image, "EntityType")) if source is not None else None
        if key is not None:
            grouped.setdefault(key, []).append(image)
            continue
        for item in projection.project_item(image, shards):
            view[ddb_json.item_key(item)] = item
    for key, images in grouped.items():
        state = from_shop(key, images)
        if state.present():
            for item_key, item in state.items(shards).items():
                view[item_key] = without_bookkeeping(item)
    return view


def comparable(items: Iterable[Image]) -> dict[ViewKey, Image]:
    """View items as verify compares them with ``implied_view``: bookkeeping left out, stubs and counters left
    out (counters are checked as sums, ``adminview.walk``)."""
    return {
        ddb_json.item_key(i): without_bookkeeping(i)
        for i in items
        if not is_stub(i) and not figures.is_counter(i) and not figures.is_counted(i)
    }


def counted_differs(key: ViewKey, shop_items: list[Image], stored: Image | None) -> bool:
    """An order whose counted contribution (``stored``: its ``#counted`` item) is not what its shop items
    contribute: its counters are off by the difference (a rebuild adds it)."""
    if key[1] != ORDER_SK:
        return False
    expected = from_shop(key, shop_items).contribution()
    return figures.counted(expected.order_id, stored) != expected
