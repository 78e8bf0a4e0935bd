"""Key formats of the shop table: the only module that knows its "c#", "o#", "i#" ... prefixes (the admin view's
own are ``adminview.core.schema``'s). Builders take ids bare (``12345``) or prefixed (``c#12345``) and validate them,
so bad input is rejected before it reaches DynamoDB.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from datetime import datetime
from enum import StrEnum
from typing import Required, TypedDict

from shop.errors import InvalidInput

CUSTOMER = "c#"
PRODUCT = "p#"
WAREHOUSE = "w#"
ORDER = "o#"
INVOICE = "i#"
SHIPMENT = "sh#"
SHIPMENT_ITEM = "shp#"
PAYMENT = "pmn#"  # AWS's early draft (facets file): payments as their own items
FAVOURITE = "FAVOURITE#"  # sort key of a favourite in the customer's partition
AUDIT = "AUDIT#"  # sort key of an audit entry in the order's partition: AUDIT#<at>#<id>
SYSTEM_AUDIT = "AUDIT#system"  # partition of the audit entries of changes to no order (a dead-letter replay)
NOTIFICATION = "notify#"  # sort key of a customer notification in its order's partition: notify#<at>#<id>
UNSENT = "unsent"  # Outbox-index partition of unsent notifications: unsent#<shard>, or bare as written before shards
OUTBOX_SHARDS = 4  # fixed: the sender reads every shard, so changing it would strand what waits in the others
NOTE = "n#"  # sort key of a staff note in the partition it is about: n#<at>#<id> (sorts by time)
WAREHOUSES = "WAREHOUSES"  # GSI1 partition of every warehouse
EMAIL = "email#"  # PK = SK of a customer's claim on an email address (lower-cased): email#<address>
MAX_EMAIL = 254  # RFC 5321's limit on an address; keeps the claim's key far below DynamoDB's 2,048 bytes
# Attributes code reads or writes by name beside the models (``shop.models`` declares every attribute).
ENTITY_TYPE, STATUS, ORDER_ID, CUSTOMER_ID = "EntityType", "Status", "OrderId", "CustomerId"

DEFAULT_TABLE = "OnlineShop"


def table_name() -> str:
    """``SHOP_TABLE_NAME``: here, not in ``dynamo.conf``, so the admin view's pure core can name it without I/O."""
    return os.environ.get("SHOP_TABLE_NAME") or DEFAULT_TABLE


class OrderStatus(StrEnum):
    """An order's ``Status``, as stored (never rename one)."""

    PENDING = "PENDING"
    SHIPPED = "SHIPPED"
    DELIVERED = "DELIVERED"
    CANCELLED = "CANCELLED"


# every unit of an order in these states has shipped (older shipments may lack their shipment items)
SHIPPED_WHOLE = (OrderStatus.SHIPPED, OrderStatus.DELIVERED)


ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


class InvalidId(InvalidInput):
    """An id that cannot be a key of ours (wrong prefix, characters or length)."""


def bare(value: str, prefix: str, *, what: str | None = None) -> str:
    """``c#12345`` or ``12345`` -> ``12345``; raises InvalidId for anything else."""
    label = what or _LABELS.get(prefix, "id")
    if not isinstance(value, str):
        raise InvalidId(f"{label} must be a string")
    text = value.strip()
    if text.startswith(prefix):
        text = text[len(prefix) :]
    elif "#" in text:
        raise InvalidId(f"{label} {value!r} has the wrong prefix (expected {prefix!r} or none)")
    if not ID_RE.match(text):
        raise InvalidId(
            f"{label} {value!r} is not valid: use 1-64 letters, digits, '.', '_' or '-' (letter or digit first)"
        )
    return text


_LABELS = {
    CUSTOMER: "customer id",
    PRODUCT: "product id",
    WAREHOUSE: "warehouse id",
    ORDER: "order id",
    INVOICE: "invoice id",
    SHIPMENT: "shipment id",
    SHIPMENT_ITEM: "shipment item id",
    PAYMENT: "payment id",
    FAVOURITE: "product id",
}


def _builder(prefix: str) -> Callable[[str], str]:
    def build(entity_id: str) -> str:
        return prefix + bare(entity_id, prefix)

    build.__doc__ = f"The key ``{prefix}<id>`` of an id given bare or with its prefix; InvalidId for anything else."
    return build


customer, product, warehouse, order = _builder(CUSTOMER), _builder(PRODUCT), _builder(WAREHOUSE), _builder(ORDER)
invoice, shipment, shipment_item = _builder(INVOICE), _builder(SHIPMENT), _builder(SHIPMENT_ITEM)


def favourite(product_id: str) -> str:
    """Sort key of a customer's favourite product: ``FAVOURITE#<pid>`` (accepts ``p#<pid>`` too)."""
    pid = product_id.strip() if isinstance(product_id, str) else product_id
    if isinstance(pid, str) and pid.startswith(FAVOURITE):
        pid = pid[len(FAVOURITE) :]
    return FAVOURITE + bare(pid, PRODUCT)


def email_claim(email: str) -> str:
    """Key (PK and SK) of the claim on ``email``: exact address, case-insensitive (``email#ann@example.com``)."""
    text = email.strip().lower() if isinstance(email, str) else ""
    if not text or "@" not in text or len(text) > MAX_EMAIL:
        raise InvalidId(f"{email!r} is not an email address of at most {MAX_EMAIL} characters")
    return EMAIL + text


_STRIPPED = frozenset(_LABELS)  # every prefix of an id


def strip(key: str) -> str:
    """``c#12345`` -> ``12345`` for any known prefix. Every prefix is a name and one ``#``, so one set lookup of
    the text up to the first ``#`` tells which (pages strip every id they show)."""
    head, sep, rest = key.partition("#")
    return rest if sep and head + sep in _STRIPPED else key


# Sort-key prefixes inside GSI2's customer partition: invoices by date, order items by date.
INVOICE_DATE = INVOICE
ORDER_ITEM_DATE = PRODUCT


def with_prefix(prefix: str, stored_id: str) -> str:
    """The key of an id read back from our own items, not validated again, so data written by other services with
    unusual ids still projects. Ids from people go through the validating builders above."""
    return prefix + stored_id


def without_prefix(key: str | None, prefix: str) -> str | None:
    """The id in a stored key of this kind (``o#42`` with ``ORDER`` -> ``42``), not validated; None for a key of
    another kind or with nothing after the prefix."""
    if key is None or not key.startswith(prefix) or len(key) == len(prefix):
        return None
    return key[len(prefix) :]


def invoice_date(date_text: str) -> str:
    """GSI2 sort key of an invoice in its customer's partition: ``i#<date>``."""
    return INVOICE_DATE + date_text


def audit(at: str, entry_id: str) -> str:
    """Sort key of an audit entry: ``AUDIT#<at>#<id>`` (entries of one partition sort by time)."""
    return f"{AUDIT}{at}#{entry_id}"


def after_audit(sort_key: str) -> str | None:
    """``<at>#<id>`` of an audit entry's sort key; None for any other sort key."""
    return sort_key[len(AUDIT) :] if sort_key.startswith(AUDIT) and len(sort_key) > len(AUDIT) else None


def notification(at: datetime, notification_id: str) -> str:
    """Sort key of a notification to the customer: ``notify#<UTC time, ISO basic>#<id>`` (they sort by time)."""
    return f"{NOTIFICATION}{at.strftime('%Y%m%dT%H%M%S%f')}#{notification_id}"


def shard_of(text: str, shards: int) -> int:
    """A write shard stable across processes (unlike ``hash()``): the first 8 bytes of SHA-256, mod ``shards``."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") % shards


def outbox(notification_id: str) -> str:
    """Outbox-index partition of an unsent notification: ``unsent#<shard>``, so no one partition takes them all."""
    return f"{UNSENT}#{shard_of(notification_id, OUTBOX_SHARDS)}"


def outboxes() -> tuple[str, ...]:
    """Every partition the sender reads: each shard, and the bare ``unsent`` of notifications written before."""
    return (*(f"{UNSENT}#{shard}" for shard in range(OUTBOX_SHARDS)), UNSENT)


NOTE_ID_RE = re.compile(r"^(\d{8}T\d{12})-([0-9a-f]{8})$")


def note(at: datetime, entry_id: str) -> str:
    """``n#<UTC time, ISO basic, microseconds>#<id>``: notes sort by time, and two of one moment differ."""
    return f"{NOTE}{at.strftime('%Y%m%dT%H%M%S%f')}#{entry_id}"


def note_id(sort_key: str) -> str | None:
    """The id a URL names a note by (``<time>-<id>``: no ``#``), from its sort key; None for any other key."""
    head, sep, entry_id = sort_key.removeprefix(NOTE).partition("#")
    found = f"{head}-{entry_id}"
    return found if sort_key.startswith(NOTE) and sep and NOTE_ID_RE.match(found) else None


def note_key(value: str) -> str:
    """The sort key of the note a URL names (``note_id``'s text); InvalidId for anything else."""
    found = NOTE_ID_RE.match(value) if isinstance(value, str) else None
    if found is None:
        raise InvalidId(f"note id {str(value)[:40]!r} is not valid")
    return f"{NOTE}{found.group(1)}#{found.group(2)}"


# --- Each entity's keys, declared once: every writer builds them here, ``Order(**keys.order_keys(...))`` ---------


class EntityKeys(TypedDict, total=False):
    pk: Required[str]
    sk: Required[str]
    gsi1_pk: str
    gsi1_sk: str
    gsi2_pk: str
    gsi2_sk: str


def customer_keys(customer_id: str) -> EntityKeys:
    key = customer(customer_id)
    return {"pk": key, "sk": key}


def product_keys(product_id: str) -> EntityKeys:
    key = product(product_id)
    return {"pk": key, "sk": key}


def warehouse_keys(warehouse_id: str) -> EntityKeys:
    """GSI1: every warehouse by id, in one partition (a shop has few warehouses)."""
    key = warehouse(warehouse_id)
    return {"pk": key, "sk": key, "gsi1_pk": WAREHOUSES, "gsi1_sk": key}


def inventory_keys(product_id: str, warehouse_id: str) -> EntityKeys:
    """Stock of a product in a warehouse; GSI2 (warehouse -> its products) serves pattern 14."""
    pk, sk = product(product_id), warehouse(warehouse_id)
    return {"pk": pk, "sk": sk, "gsi2_pk": sk, "gsi2_sk": pk}


def order_keys(order_id: str, customer_id: str) -> EntityKeys:
    return {"pk": order(order_id), "sk": customer(customer_id)}


def order_item_keys(order_id: str, product_id: str, customer_id: str, date_text: str) -> EntityKeys:
    """GSI1: the product's order items by date; GSI2: the customer's order items by date."""
    return {
        "pk": order(order_id),
        "sk": product(product_id),
        "gsi1_pk": product(product_id),
        "gsi1_sk": date_text,
        "gsi2_pk": customer(customer_id),
        "gsi2_sk": ORDER_ITEM_DATE + date_text,
    }


def invoice_keys(order_id: str, invoice_id: str, customer_id: str, date_text: str) -> EntityKeys:
    """GSI1: the invoice by id; GSI2: the customer's invoices by date."""
    return {
        "pk": order(order_id),
        "sk": invoice(invoice_id),
        "gsi1_pk": invoice(invoice_id),
        "gsi1_sk": invoice(invoice_id),
        "gsi2_pk": customer(customer_id),
        "gsi2_sk": invoice_date(date_text),
    }


def shipment_keys(order_id: str, shipment_id: str, warehouse_id: str | None) -> EntityKeys:
    """GSI1: the shipment by id; GSI2 (only with a warehouse): the warehouse's shipments."""
    key = shipment(shipment_id)
    built: EntityKeys = {"pk": order(order_id), "sk": key, "gsi1_pk": key, "gsi1_sk": key}
    if warehouse_id:
        built["gsi2_pk"], built["gsi2_sk"] = warehouse(warehouse_id), key
    return built


def shipment_item_keys(order_id: str, shipment_id: str, product_id: str) -> EntityKeys:
    """Keyed by shipment and product, so shipping twice cannot duplicate one; GSI1: the shipment's items by product."""
    return {
        "pk": order(order_id),
        "sk": shipment_item(f"{bare(shipment_id, SHIPMENT)}-{bare(product_id, PRODUCT)}"),
        "gsi1_pk": shipment(shipment_id),
        "gsi1_sk": product(product_id),
    }


def favourite_keys(customer_id: str, product_id: str) -> EntityKeys:
    """A customer's favourite product, in the customer's partition."""
    return {"pk": customer(customer_id), "sk": favourite(product_id)}
