"""The columns every order list shares, declared once for the page and the CSV (``dashboard.lists.Column``). A
record is an order row (an admin-view ``OrderRow`` or an ``Order``) with its customer's profile."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from django.http import StreamingHttpResponse
from django.utils.safestring import SafeString

from adminview.core.schema import OrderRow
from adminview.reads import selectors
from dashboard.cells import DASH, Cell, cells_html, id_url, tracking_links, waited_cell
from dashboard.lists import CSV_PAGE, Column, RowId, amount_column, link_column, pages_of, time_column
from dashboard.profiles import ADDRESS_CSV_HEADER, NOBODY, Profile
from dashboard.responses import csv_response
from shop import order_status
from shop.keys import OrderStatus
from shop.order_edit import SHIP_TO
from shop.order_reads import found_collections, product_names, ship_to_fields

Listed = tuple[Any, Profile]  # an order row and its customer's profile

ORDER_SECONDARY = frozenset({"items"})  # what a phone leaves out of an order list (its <th> says so too)


def customer_cell(customer_id: str, profile: Profile | None = None) -> Cell:
    """The customer of an order: their name (their id when the profile has none) linking to their page."""
    name = profile.name if profile is not None else None
    return Cell(name or customer_id, url=id_url("dashboard:customer", customer_id))


ORDER: Column[Listed] = link_column("order", "dashboard:order", "order_id", lambda r: r[0].order_id)
CUSTOMER: Column[Listed] = Column(
    "customer", lambda r: customer_cell(r[0].customer_id, r[1]), "customer_id", lambda r: r[0].customer_id
)
DATE: Column[Listed] = time_column("date", "date", lambda r: r[0].date)
WAITED: Column[Listed] = Column("waited", lambda r: waited_cell(r[0].date))
STATUS: Column[Listed] = Column("status", lambda r: Cell(r[0].status or "unknown"), "status", lambda r: r[0].status)
TOTAL: Column[Listed] = amount_column("total", "total", lambda r: r[0].total)


def items_shown(row: Any) -> str:
    """An order's item count, with what is left to ship once part of a pending order has shipped."""
    left = getattr(row, "units_left", None)
    count = DASH if row.item_count is None else str(row.item_count)
    return count if left is None else f"{count} ({left} left to ship)"


ITEMS: Column[Listed] = Column(
    "items", lambda r: Cell(items_shown(r[0]), numeric=True), "item_count", lambda r: r[0].item_count
)


def _status_column(heading: str, field: str, words: type[order_status.Words]) -> Column[Listed]:
    """A status ``shop.order_status`` derives (``with_states``), in words on the page and as its value in the CSV."""
    return Column(
        heading,
        lambda r: Cell(words(value).words if (value := getattr(r[0], field, None)) else DASH),
        field,
        lambda r: getattr(r[0], field, None),
    )


PAYMENT = _status_column("payment", "payment_status", order_status.PaymentStatus)
FULFILMENT = _status_column("fulfilment", "fulfilment_status", order_status.FulfilmentStatus)
STATUSES = (PAYMENT, FULFILMENT)


def status_cells(row: Any) -> SafeString:
    """The payment and fulfilment cells of an order row, for a list whose template draws its rows."""
    return cells_html(column.cell((row, NOBODY)) for column in STATUSES if column.cell is not None)


# the order's tracking numbers as its summary keeps them, one per shipment (page only): each a link to the
# carrier's tracking page when listed
TRACKING: Column[Listed] = Column("tracking", lambda r: Cell(tracking_links(r[0].shipments)))
NAME: Column[Listed] = Column(csv="customer_name", value=lambda r: r[1].name)
EMAIL: Column[Listed] = Column(csv="customer_email", value=lambda r: r[1].email)


def _address_part(i: int) -> Column[Listed]:
    return Column(csv=ADDRESS_CSV_HEADER[i], value=lambda r: r[1].address_cells()[i])


# the pending list's CSV is a pick list: where each order ships (its customer's current address)
ADDRESS = tuple(_address_part(i) for i in range(len(ADDRESS_CSV_HEADER)))


def order_columns(
    *, with_customer: bool = True, waited: bool = False, secondary: frozenset[str] = ORDER_SECONDARY, date: str = "date"
) -> tuple[Column[Listed], ...]:
    """An order list's columns; the customer by name when ``with_customer`` (its id in the CSV), how long it has
    waited when ``waited`` (page only), the customer's name and email in the CSV only."""
    shown = [
        ORDER,
        CUSTOMER if with_customer else replace(CUSTOMER, heading=None, cell=None),
        replace(DATE, heading=date),
        *([WAITED] if waited else []),
        replace(STATUS, secondary="status" in secondary),
        TOTAL,
        replace(ITEMS, secondary="items" in secondary),
        *STATUSES,
        NAME,
        EMAIL,
    ]
    return tuple(shown)


ORDER_COLUMNS = order_columns()


ORDER_ID: RowId[Listed] = ("order-id", lambda r: r[0].order_id)  # an order row's data-order-id


def with_states(rows: Sequence[Any]) -> list[OrderRow]:
    """Each order row (an admin-view ``OrderRow`` or an ``Order``) as an ``OrderRow`` with its payment and fulfilment
    status, and a pending order's units left to ship, as the admin view keeps them: one BatchGetItem."""
    states = selectors.order_states([row.order_id for row in rows])
    found = []
    for row in rows:
        shown = row if isinstance(row, OrderRow) else OrderRow(*(getattr(row, f) for f in ORDER_ROW_FIELDS))
        if (state := states.get(row.order_id)) is not None:
            left = state.left if row.status == OrderStatus.PENDING and any(state.shipped.values()) else None
            shown = replace(
                shown,
                payment_status=state.payment_status.value,
                fulfilment_status=state.fulfilment_status.value,
                units_left=left,
            )
        found.append(shown)
    return found


ORDER_ROW_FIELDS = ("order_id", "customer_id", "date", "status", "total", "item_count")


PICK_CSV_HEADER = ["order_id", "date", "customer_name", "product_id", "product_name", "quantity", "name", *SHIP_TO]


def pick_rows(records: Sequence[Listed]) -> list[list[object]]:
    """Every line of a page of orders with its units left to ship and where it goes: one Query of each order (side
    by side) and one BatchGetItem of the names of products whose lines kept none."""
    collections = found_collections([row.order_id for row, _ in records])
    unnamed = (i.product_id for c in collections.values() for i in c.items if not i.product_name)
    names = product_names(unnamed)
    rows: list[list[object]] = []
    for row, profile in records:
        if (collection := collections.get(row.order_id)) is None:
            continue
        head = [row.order_id, row.date.isoformat() if row.date else None, profile.name]
        ship_to = ship_to_fields(collection.order.ship_to or profile.address).values()
        sent = order_status.shipped(collection)
        for item in sorted(collection.items, key=lambda i: i.product_id):
            name = item.product_name or names.get(item.product_id)
            left = item.quantity - sent.get(item.product_id, 0)
            rows.append([*head, item.product_id, name, left, profile.name, *ship_to])
    return rows


def pick_list(records: Iterator[Listed]) -> StreamingHttpResponse:
    """The pending list's CSV as a pick list: ``pick_rows`` of every order, ``CSV_PAGE`` orders at a time."""
    rows = (row for page in pages_of(records, CSV_PAGE) for row in pick_rows(page))
    return csv_response("pending-order-lines.csv", PICK_CSV_HEADER, rows)
