"""Fixtures for the dashboard's view tests: users, logged-in clients, and a fake admin view.

The fake stands in for ``adminview.reads.selectors`` and a customer's returns (its functions are patched in place) and
honours its contract: keyword-only functions returning the real ``RowsPage``/``OrderRow``/``BuyerRow``, and the real
positions (``{"before": "<date>#<order id>"}`` for orders newest first, ``{"after": ...}`` oldest first,
``{"after": "<customer id>"}`` for buyers), with
``InvalidInput`` for a position of another shape. So paging and CSV edge cases of the admin view pages are
tested without a view table; other tests run the same pages on the real selectors.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from adminview.reads import returns_reads, selectors
from adminview.reads import totals as totals_reads
from adminview.reads.reads import Item
from adminview.reads.returns_reads import ReturnRow
from adminview.reads.selectors import BuyerRow, OrderRow, RowsPage
from adminview.reads.totals import CustomerTotals
from dynamo.paging import check_limit
from shop import keys
from shop.errors import InvalidInput
from shop.order_status import OrderState
from shop.timestamps import EVERY_DAY, DateRange, format_ts
from tests.dashboard import tour


def _position(after: dict[str, Any] | None, name: str) -> str | None:
    if after is None:
        return None
    if set(after) != {name} or not isinstance(after[name], str):
        raise InvalidInput("malformed page position")
    position: str = after[name]
    return position


def order_key(row: OrderRow) -> str:
    """The sort key the admin view gives an order (``projection.order_summary``): ``<date>#<order id>``."""
    return f"{format_ts(row.date) if row.date else ''}#{row.order_id}"


def _orders_page(
    rows: list[OrderRow], limit: int, after: dict[str, Any] | None, sort: str = "newest", dates: DateRange = EVERY_DAY
) -> RowsPage[OrderRow]:
    """Newest first, strictly before the position (like the selectors' ``SK < :pos``), or oldest first, strictly
    after it; only the orders placed within ``dates`` (UTC days, both included)."""
    check_limit(limit)
    if sort not in selectors.SORTS:
        raise InvalidInput("unknown sort")
    forward = sort == selectors.OLDEST
    name = "after" if forward else "before"
    position = _position(after, name)
    within = [
        r
        for r in sorted(rows, key=order_key, reverse=not forward)
        if (dates.start is None or (r.date is not None and r.date.date() >= dates.start))
        and (dates.end is None or (r.date is not None and r.date.date() <= dates.end))
    ]
    found = [r for r in within if position is None or (order_key(r) > position if forward else order_key(r) < position)]
    chunk = found[:limit]
    return RowsPage(chunk, {name: order_key(chunk[-1])} if len(found) > limit else None)


def _buyers_page(rows: list[BuyerRow], limit: int, after: dict[str, Any] | None) -> RowsPage[BuyerRow]:
    """By customer id, strictly after the position's customer."""
    check_limit(limit)
    start = _position(after, "after")
    found = sorted((r for r in rows if start is None or r.customer_id > start), key=lambda r: r.customer_id)
    chunk = found[:limit]
    return RowsPage(chunk, {"after": chunk[-1].customer_id} if len(found) > limit else None)


@dataclass
class FakeSelectors:
    pending: list[OrderRow] = field(default_factory=list)
    by_customer: dict[str, list[OrderRow]] = field(default_factory=dict)
    buyers: dict[str, list[BuyerRow]] = field(default_factory=dict)
    transactions: dict[str, str] = field(default_factory=dict)
    profiles: dict[str, Item] = field(default_factory=dict)  # customer id -> profile item (plain values)
    split: dict[str, list[str]] = field(default_factory=dict)  # order id -> the warehouses it ships from
    states: dict[str, OrderState] = field(default_factory=dict)  # order id -> its payment and fulfilment
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def orders_by_status(
        self,
        *,
        status: str,
        limit: int = 50,
        after: dict[str, Any] | None = None,
        sort: str = "newest",
        dates: DateRange = EVERY_DAY,
    ) -> RowsPage[OrderRow]:
        """The pending list is ``pending``; the other statuses have no orders here."""
        self.calls.append(("orders_by_status", {"status": status, "limit": limit, "after": after, "sort": sort}))
        return _orders_page(self.pending if status == "PENDING" else [], limit, after, sort, dates)

    def customer_orders(
        self,
        *,
        customer_id: str,
        limit: int = 50,
        after: dict[str, Any] | None = None,
        sort: str = "newest",
        dates: DateRange = EVERY_DAY,
    ) -> RowsPage[OrderRow]:
        cid = keys.bare(customer_id, keys.CUSTOMER)
        self.calls.append(("customer_orders", {"customer_id": cid, "limit": limit, "after": after, "sort": sort}))
        return _orders_page(self.by_customer.get(cid, []), limit, after, sort, dates)

    def customer_profiles(self, *, customer_ids: list[str], attributes: list[str] | None = None) -> list[Item | None]:
        self.calls.append(("customer_profiles", {"customer_ids": customer_ids}))
        return [self.profiles.get(cid) for cid in customer_ids]

    def product_buyers(
        self, *, product_id: str, limit: int = 50, after: dict[str, Any] | None = None
    ) -> RowsPage[BuyerRow]:
        pid = keys.bare(product_id, keys.PRODUCT)
        self.calls.append(("product_buyers", {"product_id": pid, "limit": limit, "after": after}))
        return _buyers_page(self.buyers.get(pid, []), limit, after)

    def customer_returns(
        self, *, customer_id: str, limit: int = 50, after: dict[str, Any] | None = None
    ) -> RowsPage[ReturnRow]:
        """Customers have no returns here (the returns pages' tests use the real admin view)."""
        check_limit(limit)
        keys.bare(customer_id, keys.CUSTOMER)
        return RowsPage([], None)

    def warehouses_of_split_orders(self, order_ids: list[str]) -> dict[str, list[str]]:
        self.calls.append(("warehouses_of_split_orders", {"order_ids": order_ids}))
        return {oid: self.split[oid] for oid in order_ids if oid in self.split}

    def order_states(self, order_ids: list[str]) -> dict[str, OrderState]:
        """The orders' payment and fulfilment: ``states`` (none unless a test gives them)."""
        self.calls.append(("order_states", {"order_ids": order_ids}))
        return {oid: self.states[oid] for oid in order_ids if oid in self.states}

    def order_id_for_transaction(self, *, transaction_id: str) -> str | None:
        self.calls.append(("order_id_for_transaction", {"transaction_id": transaction_id}))
        return self.transactions.get(transaction_id)

    def customer_totals(self, *, customer_id: str) -> CustomerTotals:
        """The totals of the customer's rows (none refunded), for a customer with a profile here or rows."""
        rows = self.by_customer.get(customer_id, [])
        spent = sum((r.total or Decimal(0) for r in rows if r.status != "CANCELLED"), Decimal(0))
        days = [r.date.date() for r in rows if r.date]
        known = customer_id in self.profiles or bool(rows)
        return CustomerTotals(known, len(rows), spent, Decimal(0), min(days, default=None), max(days, default=None))


def order_rows(n: int, *, customer_id: str = "1001", status: str = "PENDING") -> list[OrderRow]:
    """``n`` rows newest first (as the selectors return them)."""
    base = datetime(2024, 1, 1)
    rows = [
        OrderRow(
            order_id=f"o{i:04d}",
            customer_id=customer_id,
            date=base + timedelta(hours=i),
            status=status,
            total=Decimal("10.50") * (i + 1),
            item_count=i % 3 + 1,
        )
        for i in range(n)
    ]
    return sorted(rows, key=lambda r: (r.date, r.order_id), reverse=True)


@pytest.fixture(autouse=True)
def _view_freshness(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The freshness line reads the sync table once per page here (no cache: call counts stay exact); a test
    without an admin view table gets "unknown" without a read."""
    from dashboard import freshness

    freshness.reset()
    monkeypatch.setattr(freshness, "CACHE_S", 0.0)
    if not {"admin_view_table", "module_tables"} & set(request.fixturenames):
        monkeypatch.setattr(freshness, "_read", lambda: None)


@pytest.fixture
def fake_av(monkeypatch: pytest.MonkeyPatch) -> FakeSelectors:
    fake = FakeSelectors()
    for name in (
        "orders_by_status",
        "customer_orders",
        "customer_profiles",
        "product_buyers",
        "order_id_for_transaction",
        "warehouses_of_split_orders",
        "order_states",
    ):
        monkeypatch.setattr(selectors, name, getattr(fake, name))
    monkeypatch.setattr(returns_reads, "customer_returns", fake.customer_returns)
    monkeypatch.setattr(totals_reads, "customer_totals", fake.customer_totals)
    return fake


@pytest.fixture
def staff_user(db: None) -> User:
    return User.objects.create_user("staff", "staff@example.com", "pw-staff-123", is_staff=True)


@pytest.fixture
def fulfilment_user(db: None) -> User:
    user = User.objects.create_user("packer", "packer@example.com", "pw-packer-123", is_staff=True)
    user.groups.add(Group.objects.get_or_create(name="fulfilment")[0])
    return user


@pytest.fixture
def operator_user(db: None) -> User:
    """A staff member in the ``operators`` group: the explorer, the sync and an order's consistency (no superuser)."""
    user = User.objects.create_user("olga", "olga@example.com", "pw-olga-123", is_staff=True)
    user.groups.add(Group.objects.get_or_create(name="operators")[0])
    return user


@pytest.fixture
def operator(operator_user: User) -> Client:
    client = Client()
    client.force_login(operator_user)
    return client


@pytest.fixture
def staff(staff_user: User) -> Client:
    client = Client()
    client.force_login(staff_user)
    return client


@pytest.fixture
def packer(fulfilment_user: User) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(fulfilment_user)
    return client


@pytest.fixture
def boss(db: None) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_superuser("boss", "boss@example.com", "pw-boss-123"))
    return client


def csrf_of(client: Client) -> str:
    """A CSRF token for ``client`` (rendering a page sets the cookie)."""
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    return client.cookies["csrftoken"].value


def load_more(response: Any) -> str | None:
    """The page's "load more" link (None on the last page)."""
    html: str = response.content.decode()
    if 'class="load-more"' not in html:
        return None
    return html.split('class="load-more" href="')[1].split('"')[0].replace("&amp;", "&")


def csv_rows(response: Any) -> list[list[str]]:
    import csv
    import io

    text = b"".join(response.streaming_content).decode()
    return list(csv.reader(io.StringIO(text)))


@pytest.fixture(scope="module")
def tour_shop(module_tables: None) -> None:
    """The tour's shop (``tour.seed``), seeded once for a module whose browser tests only read it."""
    tour.seed()


@pytest.fixture(scope="session")
def tour_browser() -> Iterator[Any]:
    """One headless Chromium for the browser tests a worker runs (each test opens contexts of its own: cookies,
    storage and pages are not shared); a test using it is skipped without Chromium or Playwright."""
    with tour.chromium() as browser:
        yield browser
