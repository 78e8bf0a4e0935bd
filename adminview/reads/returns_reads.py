"""Read functions of the returns as the admin view keeps them: a constant number of calls, whatever the tables hold.

A list of returns is one Query per write shard of the status index, then one BatchGetItem of the page's return
anchors (what the index does not project; a filter by reason may leave fewer rows than asked, never more calls)
and of their orders' anchors (a return holds no prices: its value is its lines at the prices the order paid).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from adminview.core import numbers, schema, values
from adminview.core.sources.returns import line_receipt, received_whole
from adminview.reads.reads import Item, RowsPage, get_many, list_page, order_position, query
from dynamo.paging import check_limit
from returns import keys as return_keys
from returns.lifecycle import OPEN_STATUSES, RETURN
from returns.models import ReturnItem
from shop import keys
from shop.errors import InvalidInput

OPEN = "open"


@dataclass(frozen=True)
class ReturnRow:
    return_id: str
    order_id: str
    customer_id: str
    status: str | None
    requested: datetime | None
    position: str
    reasons: tuple[str, ...] = ()  # its lines' reasons in words, each once (the queue's rows only)
    units: int | None = None  # its lines' units (the queue's rows only)
    closed: datetime | None = None  # when it was rejected or refunded (its step time)
    value: Decimal | None = None  # its lines at the prices the order paid (None: a price unknown; queue only)
    received_value: Decimal | None = None  # the units that came back at those prices (None: none came back yet)


def _row(raw: Item, position: str) -> ReturnRow:
    """A return from what a list holds of it: its position (``<requested>#<rid>``) and the attributes projected."""
    requested, _sep, return_id = position.rpartition("#")
    found = schema.RETURN_KIND.read(raw)
    return ReturnRow(return_id, found.order_id, found.customer_id, found.status, schema.timestamp(requested), position)


def statuses_of(status: str) -> tuple[str, ...]:
    """The statuses a ``status=`` parameter names: ``open`` (awaiting action) or one status."""
    if status == OPEN:
        return OPEN_STATUSES
    if status in set(return_keys.ReturnStatus):
        return (status,)
    raise InvalidInput(f"status must be {OPEN} or one of {', '.join(return_keys.ReturnStatus)}")


def reason_of(reason: str | None) -> return_keys.ReturnReason | None:
    """The reason a ``reason=`` parameter names (None: any); InvalidInput for anything but a reason code."""
    if not reason:
        return None
    try:
        return return_keys.ReturnReason(reason)
    except ValueError:
        raise InvalidInput(f"reason must be one of {', '.join(return_keys.ReturnReason)}") from None


CLOSED_AT = {state: ReturnItem.get_attributes()[stamp].attr_name for state, stamp in RETURN.closed_at().items()}
# what the queue reads of each return's anchor and of its order's (whose ``Lines`` hold the prices paid)
DETAILS = ("Lines", "Received", *CLOSED_AT.values())


def _values(row: ReturnRow, item: values.Item, lines: list[values.Item], order: Item | None) -> ReturnRow:
    """The row with its lines' value at the prices its order paid (its order's anchor's ``Lines``, by product),
    and once units came back, theirs; None where a line's price is unknown (an order the view lacks)."""
    paid = values.mapping(order, "Lines") if order is not None else {}
    products = (values.string(line, "ProductId") for line in lines)
    prices = [
        values.text(values.mapping(paid, keys.with_prefix(keys.PRODUCT, p)), "Price") if p else None for p in products
    ]
    if not lines or None in prices:
        return row
    whole = received_whole({**item, schema.STATUS: row.status})
    value, received = Decimal(0), Decimal(0)
    for line, price in zip(lines, prices, strict=True):
        each = numbers.decimal_of(price)
        value += each * max(numbers.decimal_of(values.text(line, "Quantity")), Decimal(0))
        received += each * line_receipt(line, whole)[0]
    came_back = whole or any("Received" in line for line in lines)
    return replace(row, value=value, received_value=received if came_back else None)


def _closed(row: ReturnRow, anchor: Item | None) -> datetime | None:
    """When a rejected or refunded return closed, from its anchor's step time; None for any other."""
    closing = CLOSED_AT.get(return_keys.ReturnStatus(row.status)) if row.status in CLOSED_AT else None
    return schema.timestamp(values.string(anchor, closing)) if closing and anchor is not None else None


def _detailed(row: ReturnRow, anchor: Item | None, order: Item | None, reason: str | None) -> ReturnRow | None:
    """The row with its anchor's lines and closing time; None when ``reason`` is given and no line has it."""
    item = anchor or {}
    lines = [values.entries(line) for line in values.listing(item, "Lines")]
    if reason is not None and not any(
        return_keys.reason_code(values.string(line, "Reason")) == reason for line in lines
    ):
        return None
    words = (return_keys.reason_words(values.string(ln, "Reason"), values.string(ln, "ReasonText")) for ln in lines)
    units = sum(numbers.decimal_of(values.text(line, "Quantity")) for line in lines)
    shown = replace(
        row, reasons=tuple(dict.fromkeys(w for w in words if w)), units=int(units), closed=_closed(row, anchor)
    )
    return _values(shown, item, lines, order)


def returns(
    *, status: str = OPEN, reason: str | None = None, limit: int = 50, after: dict[str, Any] | None = None
) -> RowsPage[ReturnRow]:
    """Returns of a status (or awaiting action), oldest first, only those with a line of ``reason`` when given."""
    wanted = statuses_of(status)
    code = reason_of(reason)
    check_limit(limit)
    start = order_position(after, forward=True)
    index = schema.ORDERS_BY_STATUS
    partitions = [schema.return_status_partition(s, n) for s in wanted for n in range(schema.list_shards())]
    page = list_page(partitions, limit, index=index, after=start)
    rows = [_row(r, values.string(r, index.range_key) or "") for r in page.rows]
    returned = [schema.return_anchor(return_keys.RETURN + r.return_id) for r in rows]
    ordered = [schema.order_anchor(r.order_id) for r in rows if r.order_id]
    anchors = get_many([*returned, *ordered], DETAILS) if rows else []
    orders = dict(zip(ordered, anchors[len(returned) :], strict=True))
    detailed = (
        _detailed(r, a, orders.get(schema.order_anchor(r.order_id)) if r.order_id else None, code)
        for r, a in zip(rows, anchors[: len(returned)], strict=True)
    )
    return RowsPage([r for r in detailed if r is not None], page.next)


def customer_returns(*, customer_id: str, limit: int = 50, after: dict[str, Any] | None = None) -> RowsPage[ReturnRow]:
    """A customer's returns, newest ``Requested`` first (their return entries: one Query), a closed one with when
    it closed (one BatchGetItem of the closed ones' anchors, none when the page holds none)."""
    cid = keys.bare(customer_id, keys.CUSTOMER)
    check_limit(limit)
    start = order_position(after, forward=False)
    prefix = schema.CUSTOMER_RETURN_PREFIX
    first = prefix + start if start is not None else None
    found, _more = query(keys.customer(cid), limit=limit + 1, forward=False, after=first, begins_with=prefix)
    rows = found[:limit]
    positions = [(values.string(r, schema.SK) or "").removeprefix(prefix) for r in rows]
    page = [replace(_row(r, p), customer_id=cid) for r, p in zip(rows, positions, strict=True)]
    closed = [r for r in page if r.status in CLOSED_AT]
    keyed = [schema.return_anchor(return_keys.RETURN + r.return_id) for r in closed]
    anchors = get_many(keyed, list(CLOSED_AT.values())) if closed else []
    when = {r.return_id: _closed(r, a) for r, a in zip(closed, anchors, strict=True)}
    page = [replace(r, closed=when.get(r.return_id)) for r in page]
    return RowsPage(page, {"before": positions[-1]} if len(found) > limit and positions else None)
