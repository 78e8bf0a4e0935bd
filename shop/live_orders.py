"""Orders that keep arriving while the demo runs: a new one every few seconds, and now and then the oldest
pending order shipped or the oldest shipped one delivered, as staff would.

A demo whose data stands still reads 0 for "today" and shows a queue nobody works on. Every change here goes
through the domain writes customers and staff use (``order_place``, ``order_ship``, ``order_deliver``), so the
stream, the admin view, the numbers and the audit trail follow as they do for real work.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from botocore.exceptions import BotoCoreError, ClientError
from pynamodb.exceptions import PynamoDBException

from dynamo import ddb_json
from dynamo.client import client_of
from dynamo.errors import DomainError
from dynamo.instrumentation import run_in_context
from dynamo.paging import raw_items
from shop import keys, orders
from shop.audit import Actor
from shop.keys import OrderStatus
from shop.models import ShopItem

log = logging.getLogger(__name__)

EVERY_S = 4.0  # a new order about this often (each wait drawn between half and one and a half of it)
SHIP_CHANCE = 0.7  # per round: ship the oldest pending order (a little below one a round: the queue grows slowly)
DELIVER_CHANCE = 0.5  # per round: deliver the oldest shipped order
MAX_LINES, MAX_QUANTITY = 3, 2
CARRIERS = ("DHL", "UPS", "PostNord", "FedEx")
SCAN_SEGMENTS = 4


@dataclass
class LiveShop:
    """What the live orders pick from: customer and product ids, and the orders waiting to be shipped and to be
    delivered, oldest first (those found at start, then the ones placed and shipped here)."""

    customers: list[str]
    products: list[str]
    pending: list[str] = field(default_factory=list)
    shipped: list[str] = field(default_factory=list)


def live_shop() -> LiveShop:
    """The shop's customers, products and open orders: one parallel Scan of keys, type, status and date. For the
    demo's start only (an operator path), never for a page."""
    client, table = client_of(ShopItem), str(ShopItem.Meta.table_name)
    names = {"#pk": "PK", "#t": "EntityType", "#s": "Status", "#d": "Date"}
    values = {":c": ddb_json.s("customer"), ":p": ddb_json.s("product"), ":o": ddb_json.s("order")}

    def segment(n: int) -> list[ddb_json.Item]:
        return list(
            raw_items(
                client,
                "scan",
                TableName=table,
                Segment=n,
                TotalSegments=SCAN_SEGMENTS,
                ProjectionExpression="#pk, #t, #s, #d",
                FilterExpression="#t IN (:c, :p, :o)",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
            )
        )

    with ThreadPoolExecutor(max_workers=SCAN_SEGMENTS) as pool:
        found = [raw for part in pool.map(run_in_context(segment), range(SCAN_SEGMENTS)) for raw in part]
    shop = LiveShop(customers=[], products=[])
    open_orders: dict[str, list[tuple[str, str]]] = {OrderStatus.PENDING: [], OrderStatus.SHIPPED: []}
    for raw in found:
        kind, bare = ddb_json.string(raw, "EntityType"), keys.strip(ddb_json.string(raw, "PK") or "")
        status = ddb_json.string(raw, "Status") or ""
        if kind == "customer":
            shop.customers.append(bare)
        elif kind == "product":
            shop.products.append(bare)
        elif status in open_orders:
            open_orders[status].append((ddb_json.string(raw, "Date") or "", bare))
    shop.customers.sort()
    shop.products.sort()
    shop.pending = [oid for _, oid in sorted(open_orders[OrderStatus.PENDING])]
    shop.shipped = [oid for _, oid in sorted(open_orders[OrderStatus.SHIPPED])]
    return shop


def _place(shop: LiveShop, rng: random.Random) -> str:
    products = rng.sample(shop.products, k=min(len(shop.products), rng.randint(1, MAX_LINES)))
    lines = [orders.OrderLine(pid, rng.randint(1, MAX_QUANTITY)) for pid in products]
    order = orders.order_place(customer_id=rng.choice(shop.customers), lines=lines)
    shop.pending.append(order.order_id)
    return f"placed order {order.order_id}"


def _ship(shop: LiveShop, rng: random.Random, actor: Actor) -> str:
    oid, carrier = shop.pending.pop(0), rng.choice(CARRIERS)
    number = f"{carrier[:2].upper()}{rng.randrange(10**10):010d}"
    orders.order_ship(order_id=oid, actor=actor, carrier=carrier, tracking_number=number)
    shop.shipped.append(oid)
    return f"shipped order {oid}"


def _deliver(shop: LiveShop, actor: Actor) -> str:
    oid = shop.shipped.pop(0)
    orders.order_deliver(order_id=oid, actor=actor)
    return f"delivered order {oid}"


def one_round(shop: LiveShop, rng: random.Random, actor: Actor) -> list[str]:
    """Place an order; maybe ship the oldest pending one, maybe deliver the oldest shipped one. Returns what was
    done and what was refused (an order staff changed meanwhile, a product out of stock): a refusal only skips
    that step, and an order taken off a queue is not retried (staff may have moved it on)."""
    steps: list[Callable[[], str]] = []
    if shop.customers and shop.products:
        steps.append(lambda: _place(shop, rng))
    if shop.pending and rng.random() < SHIP_CHANCE:
        steps.append(lambda: _ship(shop, rng, actor))
    if shop.shipped and rng.random() < DELIVER_CHANCE:
        steps.append(lambda: _deliver(shop, actor))
    done = []
    for step in steps:
        try:
            done.append(step())
        except DomainError as exc:
            done.append(f"refused: {exc}")
    return done


def run(
    shop: LiveShop,
    *,
    actor: Actor,
    stop: threading.Event,
    every_s: float = EVERY_S,
    rounds: int | None = None,
    rng: random.Random | None = None,
) -> int:
    """Rounds until ``stop`` is set (or ``rounds`` have run), about ``every_s`` apart; returns the rounds run.
    DynamoDB failing (throttled, not answering) costs a round, logged, not the demo."""
    rng = rng or random.Random()
    done = 0
    while (rounds is None or done < rounds) and not stop.is_set():
        try:
            for line in one_round(shop, rng, actor):
                log.debug("live orders: %s", line)
        except (PynamoDBException, BotoCoreError, ClientError) as exc:
            log.warning("live orders: a round failed, trying again next round: %s", exc)
        done += 1
        if rounds is not None and done >= rounds:
            break
        stop.wait(rng.uniform(0.5, 1.5) * every_s)
    return done
