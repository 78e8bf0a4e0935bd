"""A customer's totals: one Query of their view partition from ``#profile`` to the last order entry (more only past
DynamoDB's 1 MB page), the entries summed here so that an order change stays one entry write; only the refunds
need a sum kept by the sync (``docs/admin-view.md``, "A customer's totals").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from adminview.core import anchor, numbers, schema, values
from adminview.reads.reads import LAST_CHAR, Range, query
from shop import keys

PAGE = 5000  # items a Query may return (DynamoDB's 1 MB page is the real bound)
READ = (schema.KIND, *schema.CUSTOMER_ORDER_KIND.names, schema.REFUNDED, anchor.GONE)


@dataclass(frozen=True)
class CustomerTotals:
    """``known``: the view holds the customer's profile (a customer the sync has not brought yet is not)."""

    known: bool
    orders: int = 0  # every order placed, cancelled ones too
    spent: Decimal = Decimal(0)  # the totals of the orders not cancelled
    refunded: Decimal = Decimal(0)
    first_order: date | None = None
    last_order: date | None = None
    paid: Decimal = Decimal(0)  # what the invoices of their orders were paid, manual payments too


def customer_totals(*, customer_id: str) -> CustomerTotals:
    """The customer's totals from their view partition, page after page until DynamoDB has no more."""
    pk = keys.customer(customer_id)
    within = Range(schema.PROFILE_SK, schema.CUSTOMER_ORDER_PREFIX + LAST_CHAR)
    known, orders, spent, refunded, paid = False, 0, Decimal(0), Decimal(0), Decimal(0)
    days: list[date] = []
    after: str | None = None
    while True:
        found, more = query(pk, limit=PAGE, within=within, after=after, attributes=READ)
        for item in found:
            kind, sk = values.string(item, schema.KIND), values.string(item, schema.SK) or ""
            if kind == schema.PROFILE:
                known = anchor.GONE not in item
            elif sk == schema.CUSTOMER_REFUNDED_SK:
                refunded = numbers.decimal_of(values.text(item, schema.REFUNDED))
            elif kind == schema.CUSTOMER_ORDER:
                orders += 1
                entry = schema.CUSTOMER_ORDER_KIND.read(item)
                spent += entry.spent or Decimal(0)
                paid += entry.paid or Decimal(0)
                if day := _day(entry.date):
                    days.append(day)
        if not more or not found:
            break
        after = values.string(found[-1], schema.SK)
    first, last = min(days, default=None), max(days, default=None)
    return CustomerTotals(known, orders, spent, refunded, first, last, paid)


def _day(text: str | None) -> date | None:
    """The UTC day of an order's ``Date``; None when it has none or it is no date (as the numbers read it)."""
    day = numbers.day_of(text)
    try:
        return date.fromisoformat(day) if day else None
    except ValueError:
        return None
