"""One order's story, newest first: a pure merge of what the order page already reads, so it costs no call (see
docs/staff-work.md, "Notes and the timeline", for who each row names)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from returns import services as return_services
from returns.lifecycle import RETURN
from returns.models import Refund, ReturnItem
from returns.refunds import REFUND
from shop import notes, orders, payments
from shop.keys import OrderStatus
from shop.models import AuditEntry
from shop.order_reads import OrderCollection
from shop.timestamps import parse_ts

CUSTOMER, SYSTEM = "customer", "system"
DETAIL = 200  # characters of a note's or a change's text a row keeps


class Event(StrEnum):
    """The kinds of row, as the CSV names them, in the order they happen (which breaks ties of one moment)."""

    PLACED = "placed"
    PAID = "paid"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    EDITED = "edited"
    RETURN_REQUESTED = "return_requested"
    RETURN_APPROVED = "return_approved"
    RETURN_REJECTED = "return_rejected"
    RETURN_RECEIVED = "return_received"
    REFUNDED = "refunded"
    NOTIFIED = "notified"
    NOTE = "note"

    @property
    def words(self) -> str:
        return WORDS.get(self) or self.value.replace("_", " ").capitalize()


WORDS = {Event.EDITED: "Changed by staff", Event.NOTIFIED: "Customer notified"}  # the others say their value
RANK = {event: n for n, event in enumerate(Event)}

# A return's audit actions (``returns.services``, ``returns.lifecycle``) and the row each makes; a step another
# service took leaves no entry, so the return's own timestamps (the step's ``stamp``: ``Approved``, ``Rejected``,
# ``Received``), when it has them, stand in while the return is in a state that step leads to.
STEP_EVENTS = {"approve": Event.RETURN_APPROVED, "reject": Event.RETURN_REJECTED, "receive": Event.RETURN_RECEIVED}
RETURN_STEPS = {  # a return staff create is requested and approved by them at once
    return_services.REQUEST: (Event.RETURN_REQUESTED,),
    return_services.CREATE: (Event.RETURN_REQUESTED, Event.RETURN_APPROVED),
    **{RETURN.step(action).audited: (event,) for action, event in STEP_EVENTS.items()},
}
STEP_STAMPS = tuple(
    (event, RETURN.step(action).stamp or "", RETURN.reached(action)) for action, event in STEP_EVENTS.items()
)
SHIP, DELIVER, CANCEL = "ship", "deliver", "cancel"
NOTE_ACTIONS = (notes.ADDED, notes.EDITED)


@dataclass(frozen=True)
class Row:
    when: datetime
    event: Event
    user: str
    detail: str

    @property
    def when_text(self) -> str:
        """ISO 8601, UTC, to the second (what the CSV says)."""
        return self.when.isoformat(timespec="seconds") + "Z"


def _units(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _short(text: str | None) -> str:
    line = " ".join((text or "").split())
    return line if len(line) <= DETAIL else line[: DETAIL - 1] + "\u2026"


def _moment(text: str | None) -> datetime | None:
    """A stored time as naive UTC; None for none or one we cannot read (that row is left out, not guessed)."""
    try:
        return parse_ts(text) if text else None
    except ValueError:
        return None


def timeline(
    collection: OrderCollection, returns: Sequence[ReturnItem] = (), refunds: Sequence[Refund] = ()
) -> list[Row]:
    rows = [*_order_rows(collection), *_note_rows(collection), *_notified_rows(collection)]
    entries = sorted(collection.history, key=lambda e: e.sk)
    rows += _staff_rows(entries, collection, returns)
    rows += _return_rows(entries, returns)
    rows += _refund_rows(entries, refunds)
    return sorted(rows, key=lambda r: (r.when, RANK[r.event]), reverse=True)


def _order_rows(collection: OrderCollection) -> Iterable[Row]:
    """Placing and paying, by the customer or by the staff member who created the order."""
    order = collection.order
    creator = next((e.user for e in collection.history if e.action == orders.CREATE), CUSTOMER)
    taken = [e.detail or "" for e in collection.history if e.action == payments.PAYMENT]
    if order.date is not None:
        yield Row(
            order.date, Event.PLACED, creator, f"{_units(order.item_count or 0, 'item')}, total {order.total or 0:.2f}"
        )
    for invoice in collection.invoices:
        paid_at = invoice.date or order.date
        for payment in invoice.payments if paid_at is not None else []:
            if payment.type == payments.MANUAL and any(f"({payment.transaction_id})" in t for t in taken):
                continue
            said = " ".join(str(p) for p in (payment.type, payment.amount, payment.transaction_id) if p is not None)
            yield Row(paid_at, Event.PAID, creator, f"invoice {invoice.invoice_id}: {said}".strip())


def _notified_rows(collection: OrderCollection) -> Iterable[Row]:
    for item in collection.notifications:
        if item.sent is not None:
            yield Row(item.sent, Event.NOTIFIED, SYSTEM, f"{item.kind} email")


def _note_rows(collection: OrderCollection) -> Iterable[Row]:
    for thread in notes.threads(collection.notes):
        at = _moment(thread.first.at)
        if at is None:
            continue
        yield Row(
            at, Event.NOTE, thread.first.user, _short(thread.latest.text) + (" (edited)" if thread.edited else "")
        )


def _staff_rows(
    entries: Sequence[AuditEntry], collection: OrderCollection, returns: Sequence[ReturnItem]
) -> Iterable[Row]:
    """Ship, deliver and cancel as their own events, a note on a return as a note, any other staff change to the
    order but a return's or a refund's as ``edited``."""
    shipments = sorted(collection.shipments, key=lambda s: (s.date or datetime.min, s.sk))
    ships = [e for e in entries if e.action == SHIP]
    # one ship writes a shipment per warehouse, all with its date: the n-th date is the n-th ship's
    dates = list(dict.fromkeys(s.date for s in shipments))
    for shipment in shipments:
        n = dates.index(shipment.date)
        entry = ships[n] if n < len(ships) else None
        at = shipment.date or (_moment(entry.at) if entry else None)
        said = ", ".join(p for p in (shipment.carrier, shipment.tracking_number) if p)
        if at is not None:
            yield Row(
                at,
                Event.SHIPPED,
                entry.user if entry else SYSTEM,
                f"shipment {shipment.shipment_id}" + (f": {said}" if said else ""),
            )
    delivered = False
    for entry in entries:
        at = _moment(entry.at)
        if at is None or entry.action in (SHIP, orders.CREATE, REFUND) or entry.action in RETURN_STEPS:
            continue
        if entry.action == DELIVER:
            delivered = True
            yield Row(at, Event.DELIVERED, entry.user, "")
        elif entry.action == payments.PAYMENT:
            yield Row(at, Event.PAID, entry.user, _short(entry.detail))
        elif entry.action == CANCEL:
            kept = collection.order.cancel_reason
            yield Row(at, Event.CANCELLED, entry.user, entry.detail or (f"reason: {kept}" if kept else ""))
        elif entry.action in NOTE_ACTIONS:
            if any(return_services.is_about(entry.detail, r.return_id) for r in returns):
                yield Row(at, Event.NOTE, entry.user, _short(entry.detail))
        else:
            yield Row(at, Event.EDITED, entry.user, _short(entry.detail or entry.action))
    order = collection.order
    expected = _moment(order.delivery_date)
    if not delivered and order.order_status is OrderStatus.DELIVERED and expected is not None:
        yield Row(expected, Event.DELIVERED, SYSTEM, "expected date: no delivery recorded")


def _return_rows(entries: Sequence[AuditEntry], returns: Sequence[ReturnItem]) -> Iterable[Row]:
    for item in returns:
        rid = item.return_id
        seen: set[Event] = set()
        for entry in entries:
            events = RETURN_STEPS.get(entry.action, ())
            at = _moment(entry.at)
            if not events or at is None or not return_services.is_about(entry.detail, rid):
                continue
            seen.update(events)
            detail = (entry.detail or "").removeprefix(return_services.about(rid)).removeprefix(": ")
            for event in events:
                yield Row(at, event, entry.user, f"return {rid}" + (f": {detail}" if detail else ""))
        if Event.RETURN_REQUESTED not in seen and item.requested is not None:
            yield Row(item.requested, Event.RETURN_REQUESTED, CUSTOMER, f"return {rid}: {_units(item.units, 'unit')}")
        for event, stamp, reached in STEP_STAMPS:
            at = getattr(item, stamp, None)  # the return's own step timestamps, on items that have them
            if event not in seen and item.return_status in reached and isinstance(at, datetime):
                yield Row(at, event, SYSTEM, f"return {rid}")


def _refund_rows(entries: Sequence[AuditEntry], refunds: Sequence[Refund]) -> Iterable[Row]:
    """Each refund, by whom the audit entry that names its amount and reference says (``system`` if none)."""
    made = [e for e in entries if e.action == REFUND]
    for refund in refunds:
        said = f"{refund.amount:.2f} ({refund.reference})"
        entry = next((e for e in made if said in (e.detail or "")), None)
        for_return = f", return {refund.return_id}" if refund.return_id else ""
        yield Row(refund.date, Event.REFUNDED, entry.user if entry else SYSTEM, said + for_return)
