"""Customers shopping while the demo runs, so its "today" does not read 0: an order about once a minute and, now and
then, another service's step (``settings.LIVE_ORDER_EXTENSIONS``), through the domain writes as ``storefront``.
"""

from __future__ import annotations

import functools
import logging
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from botocore.exceptions import BotoCoreError, ClientError
from pynamodb.exceptions import PynamoDBException

from domain.errors import DomainError
from shop import keys, orders
from shop.audit import Actor
from shop.demo_options import ORDER_EVERY_S
from shop.keys import OrderStatus
from shop.seed_ids import scan_entities

log = logging.getLogger(__name__)

OPEN = (OrderStatus.PENDING, OrderStatus.SHIPPED, OrderStatus.DELIVERED)  # the orders a round may act on
STOREFRONT = Actor("storefront")  # who the live orders and the customers' requests are by
MAX_LINES, MAX_QUANTITY = 3, 2


@dataclass
class LiveShop:
    """What the live orders pick from: customer and product ids, and the open orders by status, oldest first."""

    customers: list[str]
    products: list[str]
    pending: list[str] = field(default_factory=list)
    shipped: list[str] = field(default_factory=list)
    delivered: list[str] = field(default_factory=list)


LiveStep = Callable[[LiveShop, random.Random, Actor], "str | None"]
"""Another service's step of a round: what it did, or None; a ``DomainError`` is a refusal, and the round goes on."""


def live_shop() -> LiveShop:
    """The shop's customers, products and open orders: one ``scan_entities``, at the demo's start."""
    found = scan_entities(["customer", "product", "order"], ["PK", keys.STATUS, "Date"])
    by_kind: dict[str, list[tuple[str, str]]] = {kind: [] for kind in ("customer", "product", *OPEN)}
    for plain in found:
        kind, status = str(plain.get(keys.ENTITY_TYPE)), str(plain.get(keys.STATUS, ""))
        if kind == "order":  # an order goes with its status, oldest first
            kind = status if status in OPEN else ""
        if kind in by_kind:
            by_kind[kind].append((str(plain.get("Date", "")) if kind in OPEN else "", keys.strip(str(plain["PK"]))))
    ids = {kind: [bare for _, bare in sorted(pairs)] for kind, pairs in by_kind.items()}
    return LiveShop(ids["customer"], ids["product"], *(ids[status] for status in OPEN))  # pending, shipped, delivered


def _place(shop: LiveShop, rng: random.Random) -> str:
    products = rng.sample(shop.products, k=min(len(shop.products), rng.randint(1, MAX_LINES)))
    lines = [orders.OrderLine(pid, rng.randint(1, MAX_QUANTITY)) for pid in products]
    order = orders.order_place(customer_id=rng.choice(shop.customers), lines=lines)
    shop.pending.append(order.order_id)
    return f"placed order {order.order_id}"


def one_round(shop: LiveShop, rng: random.Random, actor: Actor, extras: Sequence[LiveStep] = ()) -> list[str]:
    """Place an order, then each of ``extras``; what was done and refused (a refusal only skips that step)."""
    steps: list[Callable[[], str | None]] = []
    if shop.customers and shop.products:
        steps.append(lambda: _place(shop, rng))
    steps += [functools.partial(extra, shop, rng, actor) for extra in extras]
    done = []
    for step in steps:
        try:
            said = step()
        except DomainError as exc:
            said = f"refused: {exc}"
        if said is not None:
            done.append(said)
    return done


def run(
    shop: LiveShop,
    *,
    actor: Actor = STOREFRONT,
    stop: threading.Event,
    every_s: float = ORDER_EVERY_S,
    rounds: int | None = None,
    rng: random.Random | None = None,
    extras: Sequence[LiveStep] = (),
) -> int:
    """Rounds about ``every_s`` apart until ``stop`` (or ``rounds``); DynamoDB failing costs a round, not the demo."""
    rng = rng or random.Random()
    done = 0
    while (rounds is None or done < rounds) and not stop.is_set():
        try:
            for line in one_round(shop, rng, actor, extras):
                log.debug("live orders: %s", line)
        except (PynamoDBException, BotoCoreError, ClientError) as exc:
            log.warning("live orders: a round failed, trying again next round: %s", exc)
        done += 1
        if rounds is not None and done >= rounds:
            break
        stop.wait(rng.uniform(0.5, 1.5) * every_s)
    return done
