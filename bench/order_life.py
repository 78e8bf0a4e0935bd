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
from functools import partial
from typing import Any

from bench.sync import TimedPoller, ViewWrites, counting_view_writes, counting_writes
from returns.models import ReturnsItem
from returns.services import Line, return_approve, return_receive, return_refund, return_request
from shop import keys, seeding
from shop.audit import Actor
from shop.models import Inventory, ShopItem, Warehouse
from shop.orders import OrderLine, order_collection, order_deliver, order_place, order_ship

DEFAULT_ORDERS = 20
LINES = 2
STAFF = Actor("bench-staff")
ORDER_STEPS = ("place", "ship", "deliver")
RETURN_STEPS = ("request", "approve", "receive", "refund")


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


def _step(reader: TimedPoller, acts: list[Callable[[], object]], orders: int) -> dict[str, Any]:
    """Each of ``acts`` (one an order) with the sync drained after it, as a live shop's following sync applies
    each change on its own: the shop's, the returns table's and the view's writes counted."""
    failed, records = reader.stats.dead_lettered, 0
    with counting_writes(ShopItem) as shop, counting_writes(ReturnsItem) as returns, counting_view_writes() as view:
        for act in acts:
            act()
            records += reader.drain()
    return {
        "records": records,
        "failed": reader.stats.dead_lettered - failed,
        "shop": _units(shop, orders),
        "returns": _units(returns, orders) | {"items_written": returns.anchor_items + returns.other_items},
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
    """Place ``orders`` orders for the plan's first customer, ship them, deliver them; then a return of one unit
    of each, approved, received and refunded; each change synced on its own and weighed.
    ``order_life_wcu``: the view's units per order over the order's life (place, ship, deliver; by the billing
    rules); ``return_wcu_per_returns_write``: the view's units per item the returns service wrote."""
    customer_id = plan.first_customer_id
    if customer_id is None:
        raise RuntimeError("the plan has no customer to place orders for")
    lines = [OrderLine(product, 1) for product in _products(plan)]
    warehouse = next(keys.strip(item.pk) for item in plan.catalog if isinstance(item, Warehouse))
    reader.drain()  # whatever an earlier stage left is not this stage's
    placed: list[str] = []

    def place() -> None:
        placed.append(keys.strip(order_place(customer_id=customer_id, lines=lines).pk))

    def each(act: Callable[[str], object]) -> list[Callable[[], object]]:
        return [partial(act, order_id) for order_id in placed]

    def ship(order_id: str) -> None:
        order_ship(order_id=order_id, actor=STAFF, carrier="bench", tracking_number=f"T{order_id}")

    def request(order_id: str) -> None:
        return_request(order_id=order_id, lines=[Line(lines[0].product_id, 1, "bench")], return_id=f"b{order_id}")

    steps = {"place": _step(reader, [place] * orders, orders)}
    steps["ship"] = _step(reader, each(ship), orders)
    steps["deliver"] = _step(reader, each(lambda oid: order_deliver(order_id=oid, actor=STAFF)), orders)
    steps["request"] = _step(reader, each(request), orders)
    steps["approve"] = _step(reader, each(lambda oid: return_approve(return_id=f"b{oid}", actor=STAFF)), orders)
    steps["receive"] = _step(
        reader, each(lambda oid: return_receive(return_id=f"b{oid}", warehouse_id=warehouse, actor=STAFF)), orders
    )
    steps["refund"] = _step(
        reader,
        each(lambda oid: return_refund(return_id=f"b{oid}", amount=_price(oid), reference=f"R{oid}", actor=STAFF)),
        orders,
    )
    life = _life({name: steps[name] for name in ORDER_STEPS}, orders)
    returned = {name: steps.pop(name) for name in RETURN_STEPS}
    returns_writes = sum(step["returns"]["items_written"] for step in returned.values())
    return_view_wcu = sum(step["view"]["wcu"] for step in returned.values())
    return {
        "orders": orders,
        "lines": LINES,
        "payments": 1,
        "steps": steps,
        "life": life,
        "return_steps": returned,
        "return_life": _life(returned, orders),
        "order_life_wcu": life["view"]["wcu_per_order"],
        "order_life_shop_wcu": life["shop"]["wcu_per_order"],
        "returns_writes": returns_writes,
        "return_wcu_per_returns_write": round(return_view_wcu / returns_writes, 2) if returns_writes else None,
    }


def _price(order_id: str) -> str:
    """What the order paid for its first line's one unit (the refund of the unit returned)."""
    collection = order_collection(order_id)
    first = min(collection.items, key=lambda item: item.product_id)
    return str(first.price)


def _life(steps: dict[str, dict[str, Any]], orders: int) -> dict[str, dict[str, float]]:
    return {
        side: {
            f"{units}_per_order": round(sum(step[side][units] for step in steps.values()) / orders, 2)
            for units in ("wcu", "reported_wcu")
        }
        for side in ("shop", "returns", "view")
    }
