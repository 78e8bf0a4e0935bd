"""Staff's order work beyond placing, shipping and cancelling, for the fault tests' workloads: orders created by
staff (paid, or payment due; a price overridden), pending orders edited (a line down, up, removed, added; what was
paid above the new total refunded in the same transaction), partial shipments, manual payments and refunds outside
a return, each with the customer's notification. Every action goes through the domain code the pages call."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from typing import Any

from hypothesis import event
from hypothesis import strategies as st

from adminview.repair.table_walk import parallel_scan
from returns import services
from returns.models import ReturnsItem
from returns.services import EDIT_REFERENCE
from shop import order_status, orders, payments
from shop.audit import Actor
from shop.errors import ShopError
from shop.models import ShopItem
from shop.orders import OrderLine

STAFF = Actor("olga", "r-olga")
PRODUCTS = ("2001", "2002", "2003")
# what a pending order goes through, in this order, once staff created it
KINDS = ("create", "edit-down", "edit-up", "edit-remove", "edit-add", "ship-part", "pay", "refund")


def create(oid: str, customer_id: str, *, paid: bool) -> None:
    """Staff take an order of two lines (the second's price overridden), paid with a reference or due."""
    lines = [OrderLine(PRODUCTS[0], 2), OrderLine(PRODUCTS[1], 3, price=Decimal("4.50"))]
    place = partial(orders.order_place, customer_id=customer_id, lines=lines, order_id=oid, actor=STAFF, notify=True)
    if paid:
        place(paid_by=f"bank-{oid}")
    else:
        place(payments=[])


def _edit(oid: str, kind: str) -> None:
    """A line down (not below what shipped), up, removed (one not shipped, never the last) or a product added; what
    was paid above the new total is refunded with it."""
    collection = orders.order_collection(oid)
    lines = {item.product_id: item.quantity for item in collection.items}
    sent = order_status.shipped(collection)
    last = list(lines)[-1]
    quantities: dict[str, int] = {}
    added = None
    if kind == "edit-down":
        quantities = {p: n - 1 for p, n in lines.items() if n - 1 >= max(1, sent.get(p, 0))}
    elif kind == "edit-up":
        quantities = {last: lines[last] + 1}
    elif kind == "edit-remove":
        unshipped = [p for p in lines if not sent.get(p)]
        quantities = {unshipped[0]: 0} if unshipped and len(lines) > 1 else {}
    else:
        added = next((p for p in PRODUCTS if p not in lines), None)
    services.order_edit_with_refund(
        order_id=oid,
        expected_version=collection.order.version,
        quantities=quantities,
        add_product=added,
        add_quantity=1 if added else None,
        actor=STAFF,
        notify=True,
    )


def _ship_part(oid: str) -> None:
    """One unit of the last line with units left to ship."""
    collection = orders.order_collection(oid)
    sent = order_status.shipped(collection)
    left = [i.product_id for i in collection.items if i.quantity > sent.get(i.product_id, 0)]
    orders.order_ship(order_id=oid, actor=STAFF, notify=True, quantities={left[-1]: 1} if left else {})


def act(kind: str, oid: str, customer_id: str = "1001") -> bool:
    """One of ``KINDS`` on order ``oid`` (``create`` makes it: paid when its id ends in an even digit); False when
    the domain refused (the order is no longer pending, nothing is due or refundable ...): nothing was written."""
    steps: dict[str, Callable[[], object]] = {
        "create": lambda: create(oid, customer_id, paid=oid[-1:] in "02468"),
        **{edit: partial(_edit, oid, edit) for edit in KINDS if edit.startswith("edit-")},
        "ship-part": lambda: _ship_part(oid),
        "pay": lambda: payments.order_pay(order_id=oid, amount="1.00", reference=f"till-{oid}", actor=STAFF),
        "refund": lambda: services.order_refund(
            order_id=oid, amount="1.25", reason="goodwill", reference=f"rf-{oid}", actor=STAFF, notify=True
        ),
    }
    try:
        steps[kind]()
    except ShopError:
        return False
    return True


@dataclass
class OrderDesk:
    """Staff's order work one ``step`` at a time beside the other writers: an order of its own created every
    ``len(KINDS)`` steps (every other one paid), then taken through the rest of ``KINDS`` while it is pending."""

    prefix: str
    customers: tuple[str, ...] = ("1001", "1002", "1003")
    created: list[str] = field(default_factory=list)
    done: dict[str, int] = field(default_factory=dict)  # how many of each kind the domain took
    steps: int = 0

    def step(self) -> None:
        n, self.steps = self.steps, self.steps + 1
        kind = KINDS[n % len(KINDS)]
        if kind == "create":
            self.created.append(f"{self.prefix}{n // len(KINDS)}")
        if self.created and act(kind, self.created[-1], self.customers[n % len(self.customers)]):
            self.done[kind] = self.done.get(kind, 0) + 1


# For the property tests, beside their shop actions: ("staff", kind, n) staff create an order (kind "create"), or do
# that kind of work on the n-th order placed so far.
ACTIONS = st.tuples(st.just("staff"), st.sampled_from(KINDS), st.integers(0, 7))
_ids = itertools.count()


def act_on(action: tuple[Any, ...], placed: list[str]) -> str | None:
    """Do one of ``ACTIONS`` among the ``placed`` orders: the id of the order it created, if it created one."""
    _, kind, pick = action
    oid = f"sc{next(_ids)}" if kind == "create" else placed[pick % len(placed)] if placed else None
    if oid is None or not act(kind, oid, ("1001", "1002")[pick % 2]):
        return None
    event(f"staff: {kind}")
    return oid if kind == "create" else None


def assert_order_work_written() -> None:
    """The shop and returns tables hold what staff's order work is about: an order staff created, edits, a partial
    shipment and a manual payment by them, refunds outside a return (from the order page and from an edit), and a
    notification of each kind."""
    shop, returned = parallel_scan(ShopItem), parallel_scan(ReturnsItem)  # decoded
    audited = {
        (i["Action"], str(i.get("Detail", "")).startswith("part:"))
        for i in shop
        if i.get("EntityType") == "audit" and i.get("User") == STAFF.username
    }
    assert {("create", False), ("edit", False), ("ship", True), ("payment", False)} <= audited, audited
    kinds = {i["Kind"] for i in shop if i.get("EntityType") == "notification"}
    assert kinds == {"created", "shipped", "refunded", "edited"}, kinds
    references = {i["Reference"] for i in returned if i.get("EntityType") == "refund" and "ReturnId" not in i}
    assert any(r.startswith("rf-") for r in references) and EDIT_REFERENCE in references, references
