"""The demo's customers asking to return things while it runs (``settings.LIVE_ORDER_EXTENSIONS``, a step of
``shop.live_orders``' rounds): now and then a customer sends back a unit of an order they received, a REQUESTED
return for staff to approve, receive and refund."""

from __future__ import annotations

import random

from returns import services
from returns.seeding import REASONS
from shop.audit import Actor
from shop.live_orders import LiveShop
from shop.order_reads import order_collection

RETURN_CHANCE = 0.1  # per round (about one return for ten new orders)


def request_a_return(shop: LiveShop, rng: random.Random, actor: Actor) -> str | None:
    """With ``RETURN_CHANCE``, a return of one unit of a line of a delivered order (one not asked about before
    here), through ``returns.services.return_request`` as ``actor``; None when it did nothing."""
    if not shop.delivered or rng.random() >= RETURN_CHANCE:
        return None
    oid = shop.delivered.pop(rng.randrange(len(shop.delivered)))
    items = order_collection(oid).items
    if not items:
        return None
    line = rng.choice(items)
    found = services.return_request(
        order_id=oid, lines=[services.Line(line.product_id, 1, rng.choice(REASONS))], actor=actor
    )
    return f"return {found.return_id} requested of order {oid}"
