"""The measured stages, one function each: seeding (batched vs one PutItem at a time) and each page at the data
layer and through Django (the numbers pages' parts in ``bench.stats_pages``). The naive ways are in
``bench.naive``, the sync stages in ``bench.sync`` and ``bench.lag``, the repair commands in ``bench.repair``, the
category backfill in ``bench.category_backfill``."""

from __future__ import annotations

import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import urlencode

from adminview.reads import number_reads, returns_reads, search, selectors, sync_freshness
from bench import cpu, stats_pages
from bench.measure import alternate, summarize
from dynamo.client import client_of
from dynamo.tables import ensure_table
from returns import refunds
from shop import access_patterns, history, orders, seed_ids, seeding
from shop.keys import OrderStatus
from shop.models import SHOP_TABLE, Customer, ShopItem
from shop.order_reads import ship_to

PAGE_LIMIT = 50
BUYERS_LIMIT = 100
INVOICE_YEAR = ("2025-01-01", "2025-12-31")
PAGES = (
    "pending",
    "invoices",
    "buyers",
    "order",
    "product",
    "warehouse",
    "explorer",
    "search",
    "search_name",
    "search_email",
    "orders_all",
    "delivered",
    "returns",
    "order_json",
    "order_create",
    "order_edit",
    *stats_pages.PAGES,
)
SEARCH_TEXT = "turing"  # a last name: one search entry per customer who has it (emails start with first names)
EMAIL_PART = "example.com"  # every seeded customer's email domain: the search matches them all
UNCATEGORIZED_SHARE = 0.1  # orders seeded as before categories: what the category backfill stage changes


def seed_config(orders: int, seed: int = 42, uncategorized: float = UNCATEGORIZED_SHARE) -> seeding.SeedConfig:
    """Customers and products scale with orders (a long tail: a few customers and products are busy); a share of
    the orders is written as before categories existed (``bench.category_backfill`` gives them theirs)."""
    return seeding.SeedConfig(
        customers=max(20, orders // 4),
        products=max(10, orders // 20),
        warehouses=max(3, min(20, orders // 2000)),
        orders=orders,
        seed=seed,
        uncategorized=uncategorized,
    )


@dataclass(frozen=True)
class Subjects:
    """What each page is asked about, chosen from the plan."""

    customer_id: str  # the customer with the most orders
    invoices_in_year: int
    product_id: str  # the product with the most distinct buyers among those with <= 100
    product_buyers: int
    order_id: str  # an order with the most items
    order_items: int
    pending_orders: int
    customer_name: str = ""  # the customer's full name, searched for as typed
    pending_order_id: str = ""  # a pending order with the most items (the edit form's)


def choose_subjects(plan: seeding.SeedPlan) -> Subjects:
    by_customer = Counter(o.customer_id for o in plan.orders)
    cid = by_customer.most_common(1)[0][0]
    name = next(c.name for c in plan.catalog if isinstance(c, Customer) and c.customer_id == cid)
    start, end = INVOICE_YEAR
    in_year = sum(1 for o in plan.orders if o.customer_id == cid and start <= o.placed_at.date().isoformat() <= end)
    buyers: dict[str, set[str]] = defaultdict(set)
    for o in plan.orders:
        if o.status != OrderStatus.CANCELLED:
            for line in o.lines:
                buyers[line.product_id].add(o.customer_id)
    fitting = [(len(c), pid) for pid, c in buyers.items() if len(c) <= BUYERS_LIMIT]
    n_buyers, pid = max(fitting) if fitting else min((len(c), pid) for pid, c in buyers.items())
    order = max(plan.orders, key=lambda o: (len(o.lines), o.status in (OrderStatus.SHIPPED, OrderStatus.DELIVERED)))
    pending = [o for o in plan.orders if o.status == OrderStatus.PENDING]
    return Subjects(
        customer_id=cid,
        customer_name=name or "",
        invoices_in_year=in_year,
        product_id=pid,
        product_buyers=n_buyers,
        order_id=order.order_id,
        order_items=len(order.lines),
        pending_orders=len(pending),
        pending_order_id=max(pending, key=lambda o: len(o.lines)).order_id if pending else "",
    )


# ---- writes ---------------------------------------------------------------------------------------------------


def _sample_items(plan: seeding.SeedPlan, n: int) -> list[ShopItem]:
    items: list[ShopItem] = list(plan.catalog[: n // 2])
    for planned in plan.orders:
        if len(items) >= n:
            break
        items.extend(seeding.order_history(planned, plan.addresses.get(planned.customer_id)))
    return items[:n]


def put_item_baseline(plan: seeding.SeedPlan, sample: int) -> dict[str, Any]:
    """One PutItem per item, one after another, for a sample of the plan's items, into a scratch shop table."""
    items = _sample_items(plan, sample)
    model = SHOP_TABLE.model
    original = model.Meta.table_name
    model.Meta.table_name = f"{original}-putitem-{uuid.uuid4().hex[:6]}"
    try:
        ensure_table(SHOP_TABLE)
        client = client_of(model)
        name = str(model.Meta.table_name)
        started = time.perf_counter()
        for item in items:
            client.put_item(TableName=name, Item=item.serialize())
        seconds = time.perf_counter() - started
        client.delete_table(TableName=name)
    finally:
        model.Meta.table_name = original
    return {"items": len(items), "seconds": round(seconds, 3), "items_per_s": round(len(items) / seconds, 1)}


def seed_extensions() -> list[seeding.SeedExtension]:
    """The other services' seeding ``seed_shop`` runs after the shop's (``settings.SEED_EXTENSIONS``: returns and
    refunds), so the stream the sync drains holds every source's records."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    return [import_string(path) for path in settings.SEED_EXTENSIONS]


def seed(plan: seeding.SeedPlan, *, workers: int, baseline: dict[str, Any] | None) -> dict[str, Any]:
    """Batched seeding of the whole plan, compared with the PutItem ``baseline`` measured before (if any); the
    engine's CPU per item written (None when the run did not start the engine), what the sync's is set against."""
    spent = cpu.Snapshot.now()
    started = time.perf_counter()
    written = seeding.run(plan, workers=workers, extensions=seed_extensions())
    seconds = time.perf_counter() - started
    used = cpu.Snapshot.now()
    batched = {
        "items": written,
        "seconds": round(seconds, 3),
        "items_per_s": round(written / seconds, 1),
        "workers": workers,
    }
    return {
        "batched": batched,
        "put_item": baseline,
        "speedup": round(batched["items_per_s"] / baseline["items_per_s"], 2) if baseline else None,
        "engine_cpu_ms_per_seed_item": cpu.ms_per(used.engine_since(spent), written),
    }


# ---- pages: ours ----------------------------------------------------------------------------------------------


def page_work(subjects: Subjects) -> dict[str, Callable[[], Any]]:
    """What each page asks of DynamoDB, as functions called directly (no HTTP, no Django request): the same
    functions with the same arguments as the page's view and templates, so the page and its data layer differ
    by Django's own work only (``call_mismatches`` checks they make the same calls)."""
    from django.http import QueryDict

    from dashboard.forms.filters import PatternForm
    from dashboard.forms.lists import DEFAULT_PAGE
    from dashboard.patterns import find
    from dashboard.profiles import profiles_of
    from dashboard.views.history import LATEST
    from dashboard.views.products import product_sections
    from dashboard.views.returns import order_returns
    from dashboard.views.warehouses import warehouse_sections

    start, end = INVOICE_YEAR
    year = date.fromisoformat(start), date.fromisoformat(end)

    warehouse_id = str(seed_ids.FIRST_WAREHOUSE)

    def sections(listed: list[Any]) -> None:
        for section in listed:
            page = section.pattern.page(limit=DEFAULT_PAGE, **section.params, **section.options)
            if section.join:
                section.join(page.items)  # what the list shows beside its items (the buyers' names)

    def pending() -> None:
        page = selectors.pending_orders(limit=PAGE_LIMIT)
        profiles_of((row.customer_id for row in page.rows), names_only=True)  # the customers' names
        selectors.order_states([row.order_id for row in page.rows])  # their payment and fulfilment
        sync_freshness.freshness()  # the page's "as of ..., N s behind" line

    def invoices() -> None:
        access_patterns.customer_by_id(customer_id=subjects.customer_id)
        access_patterns.invoices_for_customer(
            customer_id=subjects.customer_id, start=start, end=end, newest_first=True, limit=PAGE_LIMIT
        )

    def buyers() -> None:
        access_patterns.product_by_id(product_id=subjects.product_id)
        selectors.product_buyers(product_id=subjects.product_id, limit=BUYERS_LIMIT)
        sync_freshness.freshness()

    def order() -> None:
        collection = orders.order_collection(subjects.order_id)
        access_patterns.customer_by_id(customer_id=collection.order.customer_id)  # who, and where it ships
        order_returns(collection)  # its returns and refunds (the returns table)

    def order_json() -> None:
        collection = orders.order_collection(subjects.order_id)
        refunds.refundable(collection.order.order_id, collection.invoices)  # what was paid and refunded

    def order_edit() -> None:
        ship_to(orders.order_collection(subjects.pending_order_id).order)  # where it goes: the customer's address

    def no_reads() -> None:
        """The create form reads nothing: the customer and products are checked when it is posted."""

    def returns_queue() -> None:
        page = returns_reads.returns(status=returns_reads.OPEN, limit=PAGE_LIMIT)
        profiles_of((row.customer_id for row in page.rows), names_only=True)  # the customers' names
        sync_freshness.freshness()

    def searching(text: str) -> Callable[[], None]:
        def search_page() -> None:
            search.search(text=text, limit=PAGE_LIMIT)
            sync_freshness.freshness()

        return search_page

    def status_list(status: str) -> Callable[[], None]:
        def orders_page() -> None:
            page = selectors.orders_by_status(status=status, limit=PAGE_LIMIT)
            profiles_of((row.customer_id for row in page.rows), names_only=True)  # the customers' names
            selectors.order_states([row.order_id for row in page.rows])  # their payment and fulfilment
            sync_freshness.freshness()

        return orders_page

    def product() -> None:
        sections(product_sections(subjects.product_id, *year))
        access_patterns.product_by_id(product_id=subjects.product_id)
        history.entity_history(kind="product", entity_id=subjects.product_id, limit=LATEST)  # its latest changes
        number_reads.product_months(product_id=subjects.product_id)  # the units sold per month
        number_reads.returned(product_id=subjects.product_id)  # and returned (the return rate)
        sync_freshness.freshness()

    def warehouse() -> None:
        sections(warehouse_sections(warehouse_id))
        access_patterns.warehouse_by_id(warehouse_id=warehouse_id)

    # the explorer's parameters as its form cleans them: once, here (validating them is Django's work)
    path, query = page_urls(subjects)["explorer"].split("?", 1)
    pattern = find(path.rstrip("/").rsplit("/", 1)[-1])
    if pattern is None:
        raise RuntimeError(f"no pattern behind {path}")
    form = PatternForm(pattern.params, QueryDict(query))
    if not form.is_valid():
        raise RuntimeError(f"the explorer page's parameters are refused: {form.errors}")
    explorer_limit, explorer_params = form.cleaned_data["limit"], form.cleaned_data["params"]

    def explorer() -> None:
        pattern.page(limit=explorer_limit, **explorer_params)

    work = {"pending": pending, "invoices": invoices, "buyers": buyers, "order": order}
    work |= {"order_json": order_json, "order_create": no_reads, "order_edit": order_edit}
    others = {"product": product, "warehouse": warehouse, "explorer": explorer, "returns": returns_queue}
    others |= {"search": searching(SEARCH_TEXT), "search_name": searching(subjects.customer_name)}
    others |= {"search_email": searching(EMAIL_PART)}
    others |= {"orders_all": status_list(selectors.ALL), "delivered": status_list(OrderStatus.DELIVERED)}
    return work | others | stats_pages.work()


# The pages only the fulfilment group opens, asked for by a staff user who is also in it (``staff_client``): the
# other pages stay as an operator outside it sees them (no ship forms on the lists), as they were measured before.
FULFILMENT_PAGES = ("order_create", "order_edit")


def staff_client(*, fulfilment: bool = False) -> Any:
    """A django.test.Client logged in as a staff user who may use the operations pages (the explorer is measured
    too) and, with ``fulfilment``, create and edit orders. The freshness line's one-second cache is off, so every
    page request makes the same calls whatever the timing, and the calls-per-page check compares like with like."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    from dashboard import freshness

    freshness.CACHE_S = 0.0

    username = "bench-fulfilment" if fulfilment else "bench"
    user, _ = get_user_model().objects.get_or_create(username=username, defaults={"is_staff": True})
    if not user.is_staff:
        user.is_staff = True
        user.save()
    for group in (settings.OPERATORS_GROUP, *([settings.FULFILMENT_GROUP] if fulfilment else [])):
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    client = Client()
    client.force_login(user)
    return client


def page_urls(subjects: Subjects) -> dict[str, str]:
    start, end = INVOICE_YEAR
    return {
        "pending": "/orders/pending/",
        "invoices": f"/customers/{subjects.customer_id}/invoices/?from={start}&to={end}",
        "buyers": f"/products/{subjects.product_id}/buyers/?limit={BUYERS_LIMIT}",
        "order": f"/orders/{subjects.order_id}/",
        "order_json": f"/orders/{subjects.order_id}/?format=json",
        "order_create": f"/orders/create/?customer_id={subjects.customer_id}&products={subjects.product_id}",
        "order_edit": f"/orders/{subjects.pending_order_id}/edit/",
        "product": f"/products/{subjects.product_id}/?from={start}&to={end}",
        "warehouse": f"/warehouses/{seed_ids.FIRST_WAREHOUSE}/",
        "explorer": f"/patterns/getOrderByProductIdForDateRange/?product_id={subjects.product_id}&from={start}&to={end}",  # noqa: E501
        "search": f"/search/?q={SEARCH_TEXT}",
        "search_name": f"/search/?{urlencode({'q': subjects.customer_name})}",
        "search_email": f"/search/?q={EMAIL_PART}",
        "orders_all": f"/orders/?status={selectors.ALL}",
        "delivered": f"/orders/?status={OrderStatus.DELIVERED}",
        "returns": f"/returns/?status={returns_reads.OPEN}",
    } | stats_pages.urls()


def page_clients(client: Any, fulfiller: Any, subjects: Subjects) -> dict[str, Any]:
    """Which client asks for each page: ``fulfiller`` for ``FULFILMENT_PAGES``, ``client`` for the rest."""
    return {name: fulfiller if name in FULFILMENT_PAGES else client for name in page_urls(subjects)}


def pages(
    client: Any,
    subjects: Subjects,
    *,
    repeats: int,
    work: dict[str, Callable[[], Any]] | None = None,
    fulfiller: Any = None,
) -> dict[str, dict[str, dict[str, Any]]]:
    """Each page through the whole Django stack (middleware, auth, view, template) as a staff user, and its data
    layer (``page_work``), alternately: request, then data layer, ``repeats`` times, so both columns are measured
    under the same conditions (DynamoDB Local answers a call made right after another faster than one made after
    a pause, e.g. after Django's work); ``fulfiller`` (default ``client``) asks for ``FULFILMENT_PAGES``. Returns
    ``{"page": {...}, "data": {...}}``."""
    work = work if work is not None else page_work(subjects)
    clients = page_clients(client, fulfiller or client, subjects)
    out: dict[str, dict[str, Any]] = {"page": {}, "data": {}}
    for name, url in page_urls(subjects).items():

        def get(url: str = url, client: Any = clients[name]) -> dict[str, Any]:
            response = client.get(url)
            if response.status_code != 200:
                raise RuntimeError(f"GET {url} answered {response.status_code}")
            return {
                "extra": {
                    "header_calls": response.headers.get("X-DynamoDB-Calls"),
                    "header_rcu": response.headers.get("X-DynamoDB-RCU"),
                    "server_timing": response.headers.get("Server-Timing"),
                }
            }

        page_samples, data_samples = alternate(get, work[name], repeats)
        out["page"][name] = summarize(page_samples)
        out["data"][name] = summarize(data_samples)
    return out
