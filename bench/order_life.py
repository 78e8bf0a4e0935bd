"""A live order's life and what it costs both tables: orders placed as a customer places them (``order_place``:
two lines, one payment), shipped and then delivered by a staff member (``order_ship``, ``order_deliver``, each
with its audit entry), the sync's poller drained after each step.

For each step, the write units of the shop table (what ``shop.orders`` writes: one TransactWriteItems per order
and step) and of the view (what the sync writes for it), each weighed by DynamoDB's billing rules from what was
sent (``bench.sync.counting_writes``), with what DynamoDB Local reports beside them. An Update is weighed by what
it sends (its key and values): the stored item and the indexes it is already in are not known, so a status
change of an order in an index weighs less than DynamoDB would bill.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.sync import TimedPoller, ViewWrites, counting_view_writes, counting_writes
from shop import keys, seeding
from shop.audit import Actor
from shop.models import Inventory, ShopItem
from shop.orders import OrderLine, order_deliver, order_place, order_ship

DEFAULT_ORDERS = 20
LINES = 2
STAFF = Actor("bench-staff")
STEPS = ("place", "ship", "deliver")


def _products(plan: seeding.SeedPlan) -> list[str]:
    """The ``LINES`` best-stocked products (one unit of each an order)."""
    stocked: dict[str, int] = {}
    for item in plan.catalog:
        if isinstance(item, Inventory):
            product = keys.strip(item.pk)
            stocked[product] = max(stocked.get(product, 0), item.quantity or 0)
    ranked = sorted(stocked, key=lambda product: -stocked[product])
    if len(ranked) < LINES:
        raise RuntimeError(f"an order of {LINES} lines needs {LINES} products in stock, the plan has {len(ranked)}")
    return ranked[:LINES]


def _step(reader: TimedPoller, act: Callable[[], None], orders: int) -> dict[str, Any]:
    """``act()`` with the shop's writes counted, then the sync drained with the view's writes counted."""
    with counting_writes(ShopItem) as shop:
        act()
    failed = reader.stats.dead_lettered
    with counting_view_writes() as view:
        records = reader.drain()
    return {
        "records": records,
        "failed": reader.stats.dead_lettered - failed,
        "shop": _units(shop, orders),
        "view": _units(view, orders) | {"items_written": view.anchor_items + view.other_items},
    }


def _units(counted: ViewWrites, orders: int) -> dict[str, Any]:
    return {
        "wcu": round(counted.estimated_wcu, 1),
        "wcu_per_order": round(counted.estimated_wcu / orders, 2),
        "reported_wcu": round(counted.total_wcu, 1),
        "reported_wcu_per_order": round(counted.total_wcu / orders, 2),
    }


def order_life(reader: TimedPoller, plan: seeding.SeedPlan, *, orders: int = DEFAULT_ORDERS) -> dict[str, Any]:
    """Place ``orders`` orders for the plan's first customer, ship them, deliver them; each step synced and
    weighed. ``order_life_wcu``: the view's units per order over the whole life (by the billing rules)."""
    customer_id = plan.first_customer_id
    if customer_id is None:
        raise RuntimeError("the plan has no customer to place orders for")
    lines = [OrderLine(product, 1) for product in _products(plan)]
    reader.drain()  # whatever an earlier stage left is not this stage's
    placed: list[str] = []

    def place() -> None:
        placed.extend(keys.strip(order_place(customer_id=customer_id, lines=lines).pk) for _ in range(orders))

    def ship() -> None:
        for order_id in placed:
            order_ship(order_id=order_id, actor=STAFF, carrier="bench", tracking_number=f"T{order_id}")

    def deliver() -> None:
        for order_id in placed:
            order_deliver(order_id=order_id, actor=STAFF)

    steps = {name: _step(reader, act, orders) for name, act in zip(STEPS, (place, ship, deliver), strict=True)}
    life = {
        side: {
            f"{units}_per_order": round(sum(step[side][units] for step in steps.values()) / orders, 2)
            for units in ("wcu", "reported_wcu")
        }
        for side in ("shop", "view")
    }
    return {
        "orders": orders,
        "lines": LINES,
        "payments": 1,
        "steps": steps,
        "life": life,
        "order_life_wcu": life["view"]["wcu_per_order"],
        "order_life_shop_wcu": life["shop"]["wcu_per_order"],
    }
