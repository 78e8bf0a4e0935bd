"""Key formats of the shop table: the only module that knows the "c#", "o#", "i#" ... prefixes.

IDs come in bare (``12345``) or prefixed (``c#12345``); every builder accepts both and validates the id,
so bad input is rejected before it reaches DynamoDB.
"""

from __future__ import annotations

import re

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
TRANSACTION = "t#"  # admin view: a payment by its transaction id

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


def customer(customer_id: str) -> str:
    return CUSTOMER + bare(customer_id, CUSTOMER)


def product(product_id: str) -> str:
    return PRODUCT + bare(product_id, PRODUCT)


def warehouse(warehouse_id: str) -> str:
    return WAREHOUSE + bare(warehouse_id, WAREHOUSE)


def order(order_id: str) -> str:
    return ORDER + bare(order_id, ORDER)


def invoice(invoice_id: str) -> str:
    return INVOICE + bare(invoice_id, INVOICE)


def shipment(shipment_id: str) -> str:
    return SHIPMENT + bare(shipment_id, SHIPMENT)


def shipment_item(shipment_item_id: str) -> str:
    return SHIPMENT_ITEM + bare(shipment_item_id, SHIPMENT_ITEM)


def shipment_item_id(shipment_id: str, product_id: str) -> str:
    """Our shipment items are keyed by shipment and product, so shipping twice cannot duplicate one."""
    return f"{bare(shipment_id, SHIPMENT)}-{bare(product_id, PRODUCT)}"


def favourite(product_id: str) -> str:
    """Sort key of a customer's favourite product: ``FAVOURITE#<pid>`` (accepts ``p#<pid>`` too)."""
    pid = product_id.strip() if isinstance(product_id, str) else product_id
    if isinstance(pid, str) and pid.startswith(FAVOURITE):
        pid = pid[len(FAVOURITE) :]
    return FAVOURITE + bare(pid, PRODUCT)


_STRIPPED = frozenset({SHIPMENT_ITEM, SHIPMENT, PAYMENT, FAVOURITE, CUSTOMER, PRODUCT, WAREHOUSE, ORDER, INVOICE})


def strip(key: str) -> str:
    """``c#12345`` -> ``12345`` for any known prefix (display and CSV use bare ids). Every prefix is a name and
    one ``#``, so the text up to the first ``#`` tells which (one set lookup: pages strip every id they show)."""
    head, sep, rest = key.partition("#")
    return rest if sep and head + sep in _STRIPPED else key


# Sort-key prefixes inside GSI2's customer partition: invoices by date, order items by date.
INVOICE_DATE = INVOICE
ORDER_ITEM_DATE = PRODUCT
