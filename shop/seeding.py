"""Deterministic, realistic demo data: a pure plan (of the config and seed) of a catalog and orders, with a long
tail of customers, popular products and statuses that fit their age, then written in bulk. Orders are written as
history, each in its final state, through the builders ``order_place`` and ``order_ship`` use, oldest first, so the
stream carries them as a live shop's does. Nothing needs a transaction: every item is new (ids start after the
highest present), and stock is loaded as it stands after that history.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Protocol, TypeVar

from dynamo.batch import Progress
from dynamo.ratelimit import TokenBucket
from shop import catalog
from shop.delivery import DELIVERY_DAYS, STANDARD_SHIPPING, delivery_date_for
from shop.keys import OrderStatus
from shop.models import Address, Product, ShopItem
from shop.order_builders import PaymentSpec, PricedLine, build_payments, build_placement, build_shipments
from shop.seed_ids import FirstIds
from shop.seed_vocabulary import ADJECTIVES, CATALOGUE, CITIES, FIRST_NAMES, LAST_NAMES, STREETS

DEFAULT_UNTIL = date(2026, 11, 1)
SPAN_DAYS = 730
T = TypeVar("T")

# Each status: its share of the orders, how recent its orders are (at most days before ``until``), and the Version
# its transitions leave.
_STATUSES = {
    OrderStatus.PENDING: (15, 14, 1),
    OrderStatus.SHIPPED: (15, 30, 2),
    OrderStatus.DELIVERED: (60, SPAN_DAYS, 3),
    OrderStatus.CANCELLED: (10, SPAN_DAYS, 2),
}
# With a span (``SeedConfig.days``): how likely a moment drawn on each weekday (Monday first) is kept.
WEEKDAY_SHARE = (1.0, 0.95, 0.95, 0.9, 0.85, 0.55, 0.45)


@dataclass(frozen=True)
class SeedConfig:
    customers: int
    products: int
    warehouses: int
    orders: int
    seed: int = 42
    until: date = DEFAULT_UNTIL  # orders are placed before this date's midnight (UTC), or this datetime
    # Share of orders written as before products had a category: what the ``order-item-category`` backfill does.
    uncategorized: float = 0.0
    # The days before ``until`` the orders spread over, with a weekday rhythm; None: each status its own age.
    days: int | None = None

    def check(self) -> None:
        if min(self.customers, self.products, self.warehouses, self.orders) < 0:
            raise ValueError("counts must not be negative")
        if self.days is not None and self.days < 1:
            raise ValueError("the orders' span is at least one day")
        if not 0.0 <= self.uncategorized <= 1.0:
            raise ValueError("the uncategorized share must be between 0 and 1")
        if self.orders and not (self.customers and self.products and self.warehouses):
            raise ValueError("orders need at least one customer, product and warehouse")


@dataclass(frozen=True)
class PlannedOrder:
    order_id: str
    customer_id: str
    lines: tuple[PricedLine, ...]
    payments: tuple[PaymentSpec, ...]
    placed_at: datetime
    status: OrderStatus
    shipment_type: str
    shipped_after: timedelta

    @property
    def delivered_at(self) -> datetime:
        """When a shipped order arrives: its shipment type's days after shipping."""
        days = DELIVERY_DAYS.get(self.shipment_type, DELIVERY_DAYS[STANDARD_SHIPPING])
        return self.placed_at + self.shipped_after + timedelta(days=days)


@dataclass
class SeedPlan:
    catalog: list[ShopItem] = field(default_factory=list)
    orders: list[PlannedOrder] = field(default_factory=list)
    addresses: dict[str, Address] = field(default_factory=dict)
    first_customer_id: str | None = None
    until: datetime | None = None  # "now" of the seeded history: nothing in it happens later

    @property
    def size(self) -> int:
        return len(self.catalog) + len(self.orders)


def _zipf_weights(n: int, s: float) -> list[float]:
    return [1.0 / (rank**s) for rank in range(1, n + 1)]


def _address(rng: random.Random) -> Address:
    city, county, country, zip_code = rng.choice(CITIES)
    return Address(
        street=rng.choice(STREETS),
        number=str(rng.randint(1, 200)),
        zip_code=zip_code,
        city=city,
        county=county,
        country=country,
    )


def plan(config: SeedConfig, ids: FirstIds | None = None) -> SeedPlan:
    """Everything to write, decided up front from the seed; ids numbered from ``ids`` (default: an empty table's)."""
    config.check()
    ids = ids or FirstIds()
    rng = random.Random(config.seed)
    result = SeedPlan()
    warehouse_ids = [str(ids.warehouse + i) for i in range(config.warehouses)]
    for wid in warehouse_ids:
        address = _address(rng)
        result.catalog.append(catalog.new_warehouse(warehouse_id=wid, name=f"{address.city} DC {wid}", address=address))
    products: dict[str, tuple[Product, str | None]] = {}  # each with the warehouse its orders are taken from
    categories = sorted(CATALOGUE)
    for pid in (str(ids.product + i) for i in range(config.products)):
        category = rng.choice(categories)
        name = f"{rng.choice(ADJECTIVES)} {rng.choice(CATALOGUE[category])}"
        price = Decimal(rng.randint(199, 49999)) / 100
        home = rng.choice(warehouse_ids) if warehouse_ids else None
        product = catalog.new_product(
            product_id=pid, name=name, price=price, description=f"{name}, item {pid}", category=category
        )
        products[pid] = (product, home)
        result.catalog.append(product)
        extra = rng.sample(warehouse_ids, k=min(len(warehouse_ids), rng.randint(0, 2)))
        for wid in sorted({w for w in (home, *extra) if w is not None}):
            stock = 0 if rng.random() < 0.05 else rng.randint(1, 400)
            result.catalog.append(catalog.new_inventory(product_id=pid, warehouse_id=str(wid), quantity=stock))
    customer_ids = [str(ids.customer + i) for i in range(config.customers)]
    for cid in customer_ids:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        result.addresses[cid] = _address(rng)
        result.catalog.append(
            catalog.new_customer(
                customer_id=cid,
                name=f"{first} {last}",
                email=f"{first}.{last}.{cid}@example.com".lower(),
                address=result.addresses[cid],
            )
        )
    result.first_customer_id = customer_ids[0] if customer_ids else None

    # Popularity: a shuffled Zipf ranking, so the busiest customers and products are spread over the ids.
    customer_rank, product_rank = customer_ids[:], list(products)
    rng.shuffle(customer_rank)
    rng.shuffle(product_rank)
    customer_w, product_w = _zipf_weights(len(customer_rank), 1.1), _zipf_weights(len(product_rank), 0.9)
    statuses, status_w = list(_STATUSES), [share for share, _, _ in _STATUSES.values()]
    end = config.until if isinstance(config.until, datetime) else datetime.combine(config.until, time(0, 0))
    result.until = end
    for k in range(config.orders):
        chosen: list[str] = []
        n_lines = min(len(product_rank), rng.choice([1, 1, 1, 2, 2, 3, 4]))
        customer_id = rng.choices(customer_rank, customer_w)[0]
        while len(chosen) < n_lines:
            pid = rng.choices(product_rank, product_w)[0]
            if pid not in chosen:
                chosen.append(pid)
        categorized = not _before_categories(k, config.uncategorized)
        lines = tuple(PricedLine.of(products[pid][0], rng.choice([1, 1, 1, 2, 3]), products[pid][1]) for pid in chosen)
        if not categorized:
            lines = tuple(replace(line, category=None) for line in lines)
        status = rng.choices(statuses, status_w)[0]
        total = sum((line.price * line.quantity for line in lines), Decimal(0))
        planned = PlannedOrder(
            order_id=str(ids.order + k),
            customer_id=customer_id,
            lines=lines,
            payments=_plan_payments(rng, total),
            placed_at=_placed_at(rng, end, status, config.days),
            status=status,
            shipment_type="Express" if rng.random() < 0.3 else "Standard",
            shipped_after=timedelta(hours=rng.randint(2, 60)),
        )
        result.orders.append(_before(planned, end))
    # numbered (so written) in the order they were placed
    result.orders.sort(key=lambda order: order.placed_at)
    result.orders[:] = [replace(order, order_id=str(ids.order + k)) for k, order in enumerate(result.orders)]
    return result


def _before(planned: PlannedOrder, end: datetime) -> PlannedOrder:
    """The order with its life over before ``end``: shipped by halfway there, or delivered an hour before."""
    if planned.status is OrderStatus.SHIPPED:
        return replace(planned, shipped_after=min(planned.shipped_after, (end - planned.placed_at) / 2))
    if planned.status is OrderStatus.DELIVERED:
        late = planned.delivered_at - (end - timedelta(hours=1))
        return replace(planned, placed_at=planned.placed_at - late) if late > timedelta(0) else planned
    return planned


def _placed_at(rng: random.Random, end: datetime, status: OrderStatus, days: int | None) -> datetime:
    """When an order of ``status`` was placed: at least an hour before ``end``, within its status's age (and
    ``days``, a moment kept by its weekday's ``WEEKDAY_SHARE``)."""
    if days is None:
        return end - timedelta(seconds=rng.randint(3600, _STATUSES[status][1] * 86400))
    span = max(1, min(days, _STATUSES[status][1])) * 86400
    while True:
        at = end - timedelta(seconds=rng.randint(3600, span))
        if rng.random() < WEEKDAY_SHARE[at.weekday()]:
            return at


def _before_categories(k: int, share: float) -> bool:
    """Whether order ``k`` is one of the ``share`` written before categories: spread evenly, without the random
    generator, so every other planned value is the same whatever the share."""
    return int((k + 1) * share) > int(k * share)


def _plan_payments(rng: random.Random, total: Decimal) -> tuple[PaymentSpec, ...]:
    card = rng.choice(["MasterCard", "Visa", "Amex"])
    txn = f"txn_{rng.getrandbits(64):016x}"
    if total > 20 and rng.random() < 0.2:
        gift = min(total - 1, Decimal(rng.choice([10, 20, 50])))
        return (
            PaymentSpec("GiftCard", gift, data="gift card"),
            PaymentSpec(card, total - gift, transaction_id=txn, data="card payment"),
        )
    return (PaymentSpec(card, total, transaction_id=txn, data="card payment"),)


def order_history(planned: PlannedOrder, address: Address | None) -> list[ShopItem]:
    """The items an order has after its planned life (placed, then shipped / delivered / cancelled)."""
    total = sum((line.price * line.quantity for line in planned.lines), Decimal(0))
    order, items, invoice = build_placement(
        order_id=planned.order_id,
        invoice_id=planned.order_id,
        customer_id=planned.customer_id,
        lines=planned.lines,
        payments=build_payments(planned.payments, total),
        placed_at=planned.placed_at,
        status=planned.status,
    )
    order.version = _STATUSES[planned.status][2]
    history: list[ShopItem] = [order, *items, invoice]
    if planned.status in (OrderStatus.SHIPPED, OrderStatus.DELIVERED):
        shipped_at = planned.placed_at + planned.shipped_after
        order.delivery_date = delivery_date_for(shipped_at, planned.shipment_type)  # as order_ship sets it
        history += build_shipments(
            order=order, items=items, shipped_at=shipped_at, shipment_type=planned.shipment_type, address=address
        )
    return history


class SeedExtension(Protocol):
    """Seeds another service's data about the seeded shop (``settings.SEED_EXTENSIONS``, so the shop need not know
    it) once the shop's items are written, with the same writers and rate (``paced`` through ``bucket``); returns
    how many items it wrote."""

    def __call__(self, seed_plan: SeedPlan, *, workers: int, bucket: TokenBucket | None) -> int: ...


def paced(items: Iterable[T], bucket: TokenBucket) -> Iterator[T]:
    """``items``, one token each: the bulk writer sends only what it was handed, so all its threads together write
    at most about the bucket's rate."""
    for item in items:
        bucket.wait()
        bucket.spend(1)
        yield item


def run(
    seed_plan: SeedPlan,
    *,
    workers: int = 8,
    on_progress: Progress | None = None,
    rate: float | None = None,
    extensions: Iterable[SeedExtension] = (),
) -> int:
    """Write the plan (catalog, then orders), then the ``extensions``; returns the items written. ``on_progress``
    counts catalog items and orders; ``rate``: at most about that many items a second overall (a shared table's
    other users keep their capacity)."""
    bucket = TokenBucket(rate, burst_s=0) if rate is not None else None  # an even pace: no first second's burst

    def limited(items: Iterable[ShopItem]) -> Iterable[ShopItem]:
        return paced(items, bucket) if bucket else items

    written = catalog.load(limited(seed_plan.catalog), parallel=workers, on_chunk=on_progress)

    def items() -> Iterator[ShopItem]:
        for planned in seed_plan.orders:
            yield from order_history(planned, seed_plan.addresses.get(planned.customer_id))
            if on_progress:
                on_progress(1)

    written += catalog.load(limited(items()), parallel=workers)
    return written + sum(extension(seed_plan, workers=workers, bucket=bucket) for extension in extensions)
