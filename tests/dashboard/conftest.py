"""Fixtures for the dashboard's view tests: users, logged-in clients, and a fake admin view.

The fake honours the selectors' contract (keyword-only functions returning the real ``RowsPage``/``OrderRow``/
``BuyerRow``, ``after`` a plain dict, ValueError on a bad ``limit``/``after``), so paging and CSV edge cases of
the AV pages are tested without a view table; other tests run the same pages on the real selectors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from adminview.selectors import BuyerRow, OrderRow, RowsPage
from dashboard import av
from shop import keys


def _page(rows: list[Any], limit: int, after: dict[str, Any] | None, key: Callable[[Any], list[str]]) -> RowsPage[Any]:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
        raise ValueError(f"limit must be 1..1000, got {limit!r}")
    start = 0
    if after is not None:
        if not isinstance(after, dict) or not isinstance(after.get("k"), list):
            raise ValueError("malformed position")
        # resume strictly after the position's key (like ExclusiveStartKey), not at an offset
        start = next((i + 1 for i, r in enumerate(rows) if key(r) == after["k"]), None)  # type: ignore[assignment]
        if start is None:
            raise ValueError("unknown position")
    chunk = rows[start : start + limit]
    more = start + limit < len(rows)
    return RowsPage(rows=chunk, next={"k": key(chunk[-1])} if more and chunk else None)


@dataclass
class FakeSelectors:
    pending: list[OrderRow] = field(default_factory=list)
    by_customer: dict[str, list[OrderRow]] = field(default_factory=dict)
    buyers: dict[str, list[BuyerRow]] = field(default_factory=dict)
    transactions: dict[str, str] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def pending_orders(self, *, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Any]:
        self.calls.append(("pending_orders", {"limit": limit, "after": after}))
        return _page(self.pending, limit, after, lambda r: [r.date.isoformat(), r.order_id])

    def customer_orders(
        self, *, customer_id: str, limit: int = 50, after: dict[str, Any] | None = None
    ) -> RowsPage[Any]:
        cid = keys.bare(customer_id, keys.CUSTOMER)
        self.calls.append(("customer_orders", {"customer_id": cid, "limit": limit, "after": after}))
        return _page(self.by_customer.get(cid, []), limit, after, lambda r: [r.date.isoformat(), r.order_id])

    def product_buyers(self, *, product_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[Any]:
        pid = keys.bare(product_id, keys.PRODUCT)
        self.calls.append(("product_buyers", {"product_id": pid, "limit": limit, "after": after}))
        return _page(self.buyers.get(pid, []), limit, after, lambda r: [r.customer_id])

    def order_id_for_transaction(self, *, transaction_id: str) -> str | None:
        self.calls.append(("order_id_for_transaction", {"transaction_id": transaction_id}))
        return self.transactions.get(transaction_id)


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
    if "admin_view_table" not in request.fixturenames:
        monkeypatch.setattr(freshness, "_read", lambda: None)


@pytest.fixture
def fake_av(monkeypatch: pytest.MonkeyPatch) -> FakeSelectors:
    fake = FakeSelectors()
    monkeypatch.setattr(av, "_selectors", lambda: fake)
    return fake


@pytest.fixture
def staff_user(db: None) -> User:
    return User.objects.create_user("staff", "staff@example.com", "pw-staff-123", is_staff=True)


@pytest.fixture
def fulfilment_user(db: None) -> User:
    user = User.objects.create_user("packer", "packer@example.com", "pw-packer-123", is_staff=True)
    user.groups.add(Group.objects.get(name="fulfilment"))
    return user


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


def csrf_of(client: Client) -> str:
    """A CSRF token for ``client`` (rendering a page sets the cookie)."""
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    return client.cookies["csrftoken"].value


def csv_rows(response: Any) -> list[list[str]]:
    import csv
    import io

    text = b"".join(response.streaming_content).decode()
    return list(csv.reader(io.StringIO(text)))
