"""The projection: pure functions from shop items (stream images, DynamoDB JSON) to admin view items.

``project_item(image)`` is what one shop item implies on its own; ``project(old, new)`` what one stream record
implies: the view items the new image yields are put, the ones only the old image yielded are deleted. One fact
needs two shop items: whether a buyer relation is in the buyers index depends on its order's status (an order
item does not carry it). That join is ``derive_buyers(summary, buyers)``; ``adminview.anchors`` applies it to an
order's whole collection, so the result does not depend on the order in which the records arrive.

Nothing here does I/O. Images may lack any of our added attributes (AWS's sample has no ``Status``,
``Total``...): a missing attribute is simply missing in the view; an unknown status is not pending.
A malformed value we must parse (``ItemCount`` that is not a number) raises ``ValueError``: the record is
reported as failed and, after retries, dead-lettered.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from adminview.models import (
    CATEGORY_SK_PREFIX,
    INDEXED_STATUSES,
    KIND_TWIN_SUFFIX,
    ORDER_SK,
    PRODUCT_SK,
    PROFILE_SK,
    USER_TWIN_SUFFIX,
    activity_key,
    activity_kind,
    catalogue_key,
    category_key,
    email_key,
    kind_activity_key,
    pending_shard,
    status_key,
    user_activity_key,
)
from dynamo import ddb_json
from shop import keys

Image = dict[str, dict[str, Any]]
ViewKey = tuple[str, str]
CANCELLED = "CANCELLED"
PENDING = "PENDING"
UNCATEGORIZED = "uncategorized"
MAX_CATEGORY = 100  # a longer category is cut (index keys and counter names stay short)


@dataclass(frozen=True)
class Put:
    item: Image

    @property
    def key(self) -> ViewKey:
        return ddb_json.item_key(self.item)


@dataclass(frozen=True)
class Delete:
    key: ViewKey


Op = Put | Delete


def _item(pk: str, sk: str, kind: str, **attrs: str | int | None) -> Image:
    item: Image = {**ddb_json.key(pk, sk), "Kind": ddb_json.s(kind)}
    for name, value in attrs.items():
        if value is None:
            continue
        item[name] = ddb_json.n(value) if isinstance(value, int) else ddb_json.s(value)
    return item


def source_of(item: Image) -> ViewKey | None:
    """The shop item a view item follows from (the inverse of ``project_item``'s keys), which verify looks up to
    tell whether the view item is still implied. None: no one shop item implies it (e.g. a stub anchor)."""
    pk, sk = ddb_json.item_key(item)
    kind = ddb_json.text(item, "Kind")
    if kind == "profile" and sk == PROFILE_SK:
        return pk, pk
    if (kind == "order" and sk == ORDER_SK) or kind == "category":  # a category entry: its order (and lines)
        customer = ddb_json.text(item, "CustomerId")
        return (pk, keys.with_prefix(keys.CUSTOMER, customer)) if customer else None
    if kind == "buyer":
        return pk, sk
    if kind == "payment":
        invoice = keys.without_prefix(sk, keys.TRANSACTION)
        return (pk, keys.with_prefix(keys.INVOICE, invoice.split("#", 1)[0])) if invoice else None
    if kind == "activity":
        return pk, sk.removesuffix(USER_TWIN_SUFFIX).removesuffix(KIND_TWIN_SUFFIX)
    if kind == "product" and sk == PRODUCT_SK:
        return pk, pk
    return None


def is_pending(status: str | None) -> bool:
    return status == PENDING


def order_summary(order_id: str, customer_id: str, image: Image, shards: int | None = None) -> Image:
    date = ddb_json.text(image, "Date")
    status = ddb_json.text(image, "Status")
    sort = f"{date or ''}#{order_id}"
    item = _item(
        keys.with_prefix(keys.ORDER, order_id),
        ORDER_SK,
        "order",
        OrderId=order_id,
        CustomerId=customer_id,
        Date=date,
        Status=status,
        Total=ddb_json.text(image, "Total"),
        ItemCount=ddb_json.integer(image, "ItemCount"),
        Version=ddb_json.integer(image, "Version"),
        GSI4PK=keys.with_prefix(keys.CUSTOMER, customer_id),
        GSI4SK=sort,
    )
    if status is not None and status in INDEXED_STATUSES:  # sparse: no key attributes while DELIVERED (or unknown)
        item["GSI1PK"] = ddb_json.s(status_key(status, pending_shard(order_id, shards)))
        item["GSI1SK"] = ddb_json.s(sort)
    return item


def profile_item(pk: str, image: Image) -> Image:
    """AV4's profile; with an email, also the (sparse) email index's keys."""
    email = ddb_json.text(image, "Email")
    item = _item(pk, PROFILE_SK, "profile", Name=ddb_json.text(image, "Name"), Email=email)
    key = email_key(email) if email else None
    if key:
        item["GSI5PK"], item["GSI5SK"] = ddb_json.s(key), ddb_json.s(pk)
    return item


def activity_items(pk: str, sk: str, image: Image, shards: int | None = None) -> list[Image]:
    """A staff change (the shop's audit entry, an order's or an entity edit's): one item in the sharded
    all-activity list, a twin in its user's list and one in its kind's (``models.activity_kind``), all sorted by
    ``<at>#<id>`` (the entry's sort key without ``AUDIT#``)."""
    sort = keys.after_audit(sk)
    user, action = ddb_json.text(image, "User"), ddb_json.text(image, "Action")
    if not sort or not user or not action:
        return []
    attrs: dict[str, str | int | None] = {
        "OrderId": ddb_json.text(image, "OrderId") or keys.without_prefix(pk, keys.ORDER),
        "Action": action,
        "User": user,
        "At": ddb_json.text(image, "At"),
        "FromStatus": ddb_json.text(image, "FromStatus"),
        "ToStatus": ddb_json.text(image, "ToStatus"),
        "OrderVersion": ddb_json.integer(image, "OrderVersion"),
        "RequestId": ddb_json.text(image, "RequestId"),
        "ProductId": ddb_json.text(image, "ProductId"),
        "Detail": ddb_json.text(image, "Detail"),
    }
    shard = pending_shard(sort, shards)
    kind = kind_activity_key(activity_kind(pk, action), shard)
    return [
        _item(pk, sk, "activity", GSI6PK=activity_key(shard), GSI6SK=sort, **attrs),
        _item(pk, sk + USER_TWIN_SUFFIX, "activity", GSI6PK=user_activity_key(user), GSI6SK=sort, **attrs),
        _item(pk, sk + KIND_TWIN_SUFFIX, "activity", GSI6PK=kind, GSI6SK=sort, **attrs),
    ]


def catalogue_item(pk: str, image: Image, shards: int | None = None) -> list[Image]:
    """A product's row in the catalogue index (GSI8, by id): its name and description (inside ``Detail``), price
    and category, as text."""
    product_id = keys.without_prefix(pk, keys.PRODUCT)
    if not product_id:
        return []
    detail = ddb_json.mapping(image, "Detail")
    item = _item(
        pk,
        PRODUCT_SK,
        "product",
        ProductId=product_id,
        Name=ddb_json.text(detail, "Name"),
        Price=ddb_json.text(image, "Price"),
        Category=ddb_json.text(image, "Category"),
        Description=ddb_json.text(detail, "Description"),
    )
    item["GSI8PK"], item["GSI8SK"] = (
        ddb_json.s(catalogue_key(pending_shard(product_id, shards))),
        ddb_json.s(product_id),
    )
    return [item]


def buyer_item(order_id: str, product_id: str, customer_id: str | None, cancelled: bool = False) -> Image:
    order_key, product_key = keys.with_prefix(keys.ORDER, order_id), keys.with_prefix(keys.PRODUCT, product_id)
    item = _item(
        order_key,
        product_key,
        "buyer",
        OrderId=order_id,
        ProductId=product_id,
        CustomerId=customer_id,
    )
    if customer_id and not cancelled:  # sparse: only relations of orders that are not CANCELLED
        item["GSI2PK"] = ddb_json.s(product_key)
        item["GSI2SK"] = ddb_json.s(f"{keys.with_prefix(keys.CUSTOMER, customer_id)}#{order_key}")
    return item


def transaction_ids(image: Image) -> list[str]:
    """The payment references (``TransactionId``) of an invoice's payments, each once, in order."""
    payments = ddb_json.listing(ddb_json.mapping(image, "Detail"), "Payments")
    found: list[str] = []
    for payment in payments:
        txid = ddb_json.text(ddb_json.entries(payment), "TransactionId")
        if txid and txid not in found:
            found.append(txid)
    return found


def project_item(image: Image | None, shards: int | None = None) -> list[Image]:
    """The view items one shop item implies on its own (buyer relations assume a non-cancelled order)."""
    if not image:
        return []
    key = ddb_json.maybe_key(image)
    if key is None:
        return []
    pk, sk = key
    entity = ddb_json.text(image, "EntityType")
    if entity == "customer":
        return [profile_item(pk, image)] if keys.without_prefix(pk, keys.CUSTOMER) else []
    if entity == "product":
        return catalogue_item(pk, image, shards) if sk == pk else []
    if entity == "order":
        oid, cid = keys.without_prefix(pk, keys.ORDER), keys.without_prefix(sk, keys.CUSTOMER)
        return [order_summary(oid, cid, image, shards)] if oid and cid else []
    if entity == "orderItem":
        oid, pid = keys.without_prefix(pk, keys.ORDER), keys.without_prefix(sk, keys.PRODUCT)
        customer = keys.without_prefix(ddb_json.text(image, "GSI2-PK"), keys.CUSTOMER)
        return [buyer_item(oid, pid, customer)] if oid and pid else []
    if entity == "audit":
        return activity_items(pk, sk, image, shards)
    if entity == "invoice":
        oid, iid = keys.without_prefix(pk, keys.ORDER), keys.without_prefix(sk, keys.INVOICE)
        if not oid or not iid:
            return []
        return [
            _item(
                pk,
                f"{keys.transaction(iid)}#{txid}",
                "payment",
                OrderId=oid,
                TransactionId=txid,
                GSI3PK=keys.transaction(txid),
                GSI3SK=pk,
            )
            for txid in transaction_ids(image)
        ]
    return []


def project(old: Image | None, new: Image | None, shards: int | None = None) -> list[Op]:
    """What one stream record (INSERT: new only; MODIFY: both; REMOVE: old only) implies for the view."""
    before = {ddb_json.item_key(i): i for i in project_item(old, shards)}
    after = {ddb_json.item_key(i): i for i in project_item(new, shards)}
    ops: list[Op] = [Delete(k) for k in before if k not in after]
    ops += [Put(i) for i in after.values()]
    return ops


def category_items(summary: Image | None, lines: Iterable[Image], shards: int | None = None) -> list[Image]:
    """One item per category of an order's lines (``lines``: order item images): the order, its customer and
    date, and the category's units and revenue; in the category index only when the order has a date. Not its
    status or total, which change without the lines changing (the category page reads them from the summaries)."""
    if summary is None:
        return []
    order_id = ddb_json.text(summary, "OrderId") or ""
    date = ddb_json.text(summary, "Date")
    totals: dict[str, list[Decimal]] = {}
    for line in lines:
        units = decimal_of(ddb_json.text(line, "Quantity"))
        price = decimal_of(ddb_json.text(line, "Price"))
        bucket = totals.setdefault(category_name(ddb_json.text(line, "Category")), [Decimal(0), Decimal(0)])
        bucket[0] += units
        bucket[1] += units * price
    items = []
    for category, (units, revenue) in sorted(totals.items()):
        item = _item(
            keys.with_prefix(keys.ORDER, order_id),
            CATEGORY_SK_PREFIX + category,
            "category",
            OrderId=order_id,
            CustomerId=ddb_json.text(summary, "CustomerId"),
            Date=date,
            Category=category,
        )
        item["Units"], item["Revenue"] = ddb_json.n(units), ddb_json.n(revenue)
        if date:
            item["GSI7PK"] = ddb_json.s(category_key(category, pending_shard(order_id, shards)))
            item["GSI7SK"] = ddb_json.s(f"{date}#{order_id}")
        items.append(item)
    return items


def category_name(value: str | None) -> str:
    """An order item's category as the numbers and the category index name it: its own ``Category`` (cut to
    ``MAX_CATEGORY`` characters), or ``uncategorized``."""
    text = (value or "").strip()
    return text[:MAX_CATEGORY] if text else UNCATEGORIZED


def decimal_of(text: str | None) -> Decimal:
    """A decimal attribute; 0 when absent or not a finite number (a line without a price sells for nothing)."""
    if not text:
        return Decimal(0)
    try:
        value = Decimal(text)
    except InvalidOperation:
        return Decimal(0)
    return value if value.is_finite() else Decimal(0)


def derive_buyers(summary: Image | None, buyers: Iterable[Image]) -> list[Image]:
    """The buyer items as they must be given the order summary (status, customer); only those that differ."""
    status = ddb_json.text(summary, "Status") if summary else None
    summary_customer = ddb_json.text(summary, "CustomerId") if summary else None
    fixed: list[Image] = []
    for buyer in buyers:
        wanted = buyer_item(
            ddb_json.text(buyer, "OrderId") or "",
            ddb_json.text(buyer, "ProductId") or "",
            ddb_json.text(buyer, "CustomerId") or summary_customer,
            cancelled=status == CANCELLED,
        )
        if wanted != buyer:
            fixed.append(wanted)
    return fixed


__all__ = ["Delete", "Op", "Put", "derive_buyers", "project", "project_item"]
