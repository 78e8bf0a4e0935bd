"""Writes to the returns table beside the shop's, so the view's two streams carry interleaved records.

Two writers, as in production: staff acting through ``returns.services`` on the shop's delivered and pending
orders (request, approve, reject, receive, refund; cancel a paid order with its refund), and another service
putting returns and refunds with plain PutItem/UpdateItem in the shapes of ``docs/returns.md``. Both write what
the view must count apart or leave alone: partial receipts (received < quantity), damaged units (restocked <
received), refunds of goods never received (the customer keeps them), refunds with an ``Override``, and notes on
returns.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from dynamo.client import client_of
from returns import access_patterns, notes, services
from returns.keys import ReturnStatus
from returns.models import ReturnsItem
from shop.audit import Actor
from shop.errors import ShopError

WAREHOUSE = "301"
NEXT: dict[str, str] = {
    ReturnStatus.REQUESTED: ReturnStatus.APPROVED,
    ReturnStatus.APPROVED: ReturnStatus.RECEIVED,
    ReturnStatus.RECEIVED: ReturnStatus.REFUNDED,
}  # the way a return moves on


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _variant(rid: str) -> int:
    """A return's own pick among the ways its goods come back (the same on every run)."""
    return sum(map(ord, rid))


def _receipt(rid: str, quantity: int) -> tuple[int, int]:
    """What came back of a line of ``quantity`` and was restocked: all of it, part of it, or some of it damaged."""
    variant = _variant(rid) % 4
    received = quantity if variant in (0, 2) else quantity - 1
    return received, received - 1 if variant == 2 and received else received


def _table() -> tuple[Any, str]:
    return client_of(ReturnsItem), str(ReturnsItem.Meta.table_name)


def put_return(rid: str, oid: str, cid: str, status: str, requested: str, lines: list[tuple[str, int]]) -> None:
    """A return as another service writes it: one PutItem, ``docs/returns.md``'s shape. Some are older items (free
    text reasons, no step times, a received one's lines without ``Received``); the others carry reason codes, step
    times and, once received, each line's ``Received`` and ``Restocked``. One refunded in three of those was never
    received. Every other return has a note."""
    client, table = _table()
    variant, when = _variant(rid), _s(requested)
    older = variant % 3 == 0
    kept = status == ReturnStatus.REFUNDED and variant % 3 == 1  # refunded, the customer keeping the goods
    received = status in (ReturnStatus.RECEIVED, ReturnStatus.REFUNDED) and not older and not kept
    coded = []
    for p, q in lines:
        line = {"ProductId": _s(p), "Quantity": _s(str(q)), "Reason": _s("changed my mind" if older else "SIZE")}
        if received:
            got, restocked = _receipt(rid, q)
            line |= {"Received": _s(str(got)), "Restocked": _s(str(restocked))}
        coded.append({"M": line})
    item = {
        "PK": _s("r#" + rid), "SK": _s("r#" + rid), "GSI1-PK": _s("o#" + oid), "GSI1-SK": _s("r#" + rid),
        "EntityType": _s("return"), "OrderId": _s(oid), "CustomerId": _s(cid), "Status": _s(status),
        "Requested": when, "Lines": {"L": coded},
    }  # fmt: skip
    if not older:
        steps = {ReturnStatus.REJECTED: ("Rejected",), ReturnStatus.RECEIVED: ("Approved", "Received")}
        steps[ReturnStatus.APPROVED] = ("Approved",)
        steps[ReturnStatus.REFUNDED] = ("Approved", "Refunded") if kept else ("Approved", "Received", "Refunded")
        item |= {step: when for step in steps.get(ReturnStatus(status), ())}
    client.put_item(TableName=table, Item=item)
    if variant % 2:
        put_note(rid, requested)


def put_note(rid: str, at: str) -> None:
    """A note on a return as another service writes it: one PutItem under the return's partition."""
    client, table = _table()
    item = {
        "PK": _s("r#" + rid), "SK": _s(f"n#{at}#{rid}"), "EntityType": _s("note"), "Text": _s("called the customer"),
        "User": _s("desk"), "At": _s(at),
    }  # fmt: skip
    client.put_item(TableName=table, Item=item)


def set_status(rid: str, status: str) -> None:
    """Another service moves its return on: one UpdateItem of ``Status``; received, its first line's ``Received``
    and ``Restocked`` too (part of it, some damaged, as ``_receipt`` picks)."""
    client, table = _table()
    update, names, values = "SET #s = :s", {"#s": "Status"}, {":s": _s(status)}
    if status == ReturnStatus.RECEIVED and _variant(rid) % 3:
        found = client.get_item(TableName=table, Key={"PK": _s("r#" + rid), "SK": _s("r#" + rid)}, ConsistentRead=True)
        quantity = int(found["Item"]["Lines"]["L"][0]["M"]["Quantity"]["S"])
        got, restocked = _receipt(rid, quantity)
        update += ", #l[0].#got = :got, #l[0].#restocked = :restocked"
        names |= {"#l": "Lines", "#got": "Received", "#restocked": "Restocked"}
        values |= {":got": _s(str(got)), ":restocked": _s(str(restocked))}
    client.update_item(
        TableName=table,
        Key={"PK": _s("r#" + rid), "SK": _s("r#" + rid)},
        UpdateExpression=update,
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=values,
    )


def put_refund(fid: str, oid: str, amount: str, when: str, return_id: str | None = None) -> None:
    """A refund as another service writes it: one PutItem, ``ReturnId`` only when it pays a return back (with an
    ``Override`` every other time)."""
    client, table = _table()
    item = {
        "PK": _s("o#" + oid), "SK": _s("f#" + fid), "EntityType": _s("refund"), "Amount": _s(amount),
        "Date": _s(when), "Reference": _s("PSP-" + fid),
    }  # fmt: skip
    if return_id is not None:
        item["ReturnId"] = _s(return_id)
        if _variant(fid) % 2:
            item["Override"] = _s("goodwill")
    client.put_item(TableName=table, Item=item)


def staff_step(rid: str, status: str, *, reject: bool = False, actor: Actor | None = None) -> str | None:
    """Staff move a return one step on through ``returns.services`` (a request approved, or rejected if told): its
    new status, or None when the domain refused (it changed meanwhile, or the refund is above what remains).
    Each return takes its own way (``_variant``): received whole, in part or partly damaged, or refunded without
    being received; refunds above what came back carry an override; every other return gets a note first."""
    variant = _variant(rid)
    try:
        if variant % 2:
            notes.note_add(return_id=rid, text="checked with the customer", actor=actor or Actor("desk"))
        if status == ReturnStatus.REQUESTED and reject:
            services.return_reject(return_id=rid, reason="outside the return window", actor=actor)
            return ReturnStatus.REJECTED
        if status == ReturnStatus.REQUESTED:
            services.return_approve(return_id=rid, actor=actor)
        elif status == ReturnStatus.APPROVED and variant % 5 == 4:
            why = "the customer keeps the goods"
            services.return_refund(return_id=rid, amount="1.00", reference=f"PSP-{rid}", override=why, actor=actor)
            return ReturnStatus.REFUNDED
        elif status == ReturnStatus.APPROVED:
            services.return_receive(return_id=rid, warehouse_id=WAREHOUSE, counts=_counts(rid), actor=actor)
        elif status == ReturnStatus.RECEIVED:
            override = "goodwill" if variant % 2 else None
            services.return_refund(return_id=rid, amount="1.00", reference=f"PSP-{rid}", override=override, actor=actor)
    except ShopError:
        return None
    return NEXT.get(status)


def _counts(rid: str) -> dict[str, services.Count]:
    """What staff count back of each line of their return: as ``_receipt`` picks."""
    found = access_patterns.return_by_id(return_id=rid, consistent=True)
    counts = {}
    for line in (found.lines or []) if found is not None else []:
        got, restocked = _receipt(rid, line.quantity)
        counts[line.product_id] = services.Count(received=got, restocked=restocked)
    return counts


def request(rid: str, oid: str, product_id: str, actor: Actor | None = None) -> bool:
    """Staff record a return of one unit of a delivered order's product; False when the domain refused."""
    try:
        line = services.Line(product_id, 1, "too small")
        services.return_request(order_id=oid, lines=[line], return_id=rid, actor=actor)
    except ShopError:
        return False
    return True


def cancel_with_refund(oid: str, actor: Actor | None = None) -> bool:
    """Staff cancel a paid order and refund what it paid (``returns.services``); False when refused."""
    try:
        services.order_cancel_with_refund(order_id=oid, actor=actor)
    except ShopError:
        return False
    return True


@dataclass
class ReturnsDesk:
    """Returns work one ``step`` at a time, beside a shop writer that reports what it ``placed`` and
    ``delivered``: each step another service puts a return (each status in turn) and moves an earlier one of its
    own on, puts a refund of a placed order every other step (every fourth one a return's), and staff request a
    return of a delivered order or move their oldest open return one step on (rejecting some requests)."""

    prefix: str
    days: tuple[str, ...] = ("2026-06-01", "2026-06-02", "2026-06-03")
    placed: list[tuple[str, str]] = field(default_factory=list)  # (order, customer)
    delivered: list[tuple[str, str]] = field(default_factory=list)  # (order, a product of it), not yet returned
    staff_open: list[tuple[str, str]] = field(default_factory=list)  # (return, status), oldest first
    requests: int = 0
    service_open: list[tuple[str, str]] = field(default_factory=list)
    steps: int = 0

    def step(self) -> None:
        n, self.steps = self.steps, self.steps + 1
        day = self.days[n % len(self.days)]
        oid, cid = self.placed[n % len(self.placed)] if self.placed else (f"{self.prefix}x{n}", "1001")
        rid, status = f"{self.prefix}v{n}", tuple(ReturnStatus)[n % len(ReturnStatus)]
        # its returns are of orders it sold itself (the shop's would leave staff nothing to return); its refunds
        # are of the shop's orders
        requested, lines = f"{day}T09:{n % 60:02d}:00", [(f"200{1 + n % 3}", 1 + n % 2)]
        put_return(rid, f"{self.prefix}x{n}", cid, status, requested, lines)
        if status in NEXT:
            self.service_open.append((rid, status))
        if self.service_open and n % 2:
            moved, was = self.service_open.pop(0)
            set_status(moved, NEXT[was])
            if NEXT[was] in NEXT:
                self.service_open.append((moved, NEXT[was]))
        if n % 2 == 0:
            put_refund(f"{self.prefix}f{n}", oid, f"{1 + n % 4}.25", f"{day}T12:00:00", rid if n % 4 == 0 else None)
        if self.delivered and n % 2 == 0:
            returned, product = self.delivered.pop(0)
            staff_rid = f"{self.prefix}s{n}"
            if request(staff_rid, returned, product):
                self.staff_open.append((staff_rid, ReturnStatus.REQUESTED))
                self.requests += 1
        elif self.staff_open:
            moving, was = self.staff_open.pop(0)
            now = staff_step(moving, was, reject=was == ReturnStatus.REQUESTED and self.requests % 3 == 2)
            if now in NEXT:
                self.staff_open.append((moving, now))


# Returns work for the property tests, beside their shop actions: ("return", n) staff request a return of a placed
# order (refused unless it is delivered); ("move", n) staff move a return of theirs one step on (rejecting some);
# ("service", status, n, day) another service puts a return in that status or a refund of a placed order (paying one
# of its returns back, if it has any);
# ("service-move", n) it moves one of its returns on with UpdateItem.
SERVICE = st.tuples(st.just("service"), st.sampled_from(tuple(ReturnStatus)), st.integers(0, 7), st.integers(0, 3))
ACTIONS = st.one_of(st.tuples(st.sampled_from(["return", "move", "service-move"]), st.integers(0, 7)), SERVICE)


def with_returns(shop: st.SearchStrategy[tuple[Any, ...]], max_size: int) -> st.SearchStrategy[list[tuple[Any, ...]]]:
    """Lists of shop and returns actions, with one write of the other service somewhere among them, so every
    round writes to both tables."""
    mixed = st.lists(st.one_of(shop, ACTIONS), min_size=1, max_size=max_size - 1)
    return st.tuples(mixed, SERVICE, st.integers(0, max_size)).map(lambda t: [*t[0][: t[2]], t[1], *t[0][t[2] :]])


_ids = itertools.count()


@dataclass
class Returns:
    """What the property tests' returns actions act on: the shop's placed orders (with a product of each), and
    the returns staff (as ``actor``, if given: audited) and the other service made, with the status each was left
    in."""

    actor: Actor | None = None

    orders: list[tuple[str, str]] = field(default_factory=list)  # (order, a product of it)
    staff: dict[str, str] = field(default_factory=dict)
    service: dict[str, str] = field(default_factory=dict)

    def act(self, action: tuple[Any, ...]) -> None:
        kind, n = action[0], next(_ids)
        if kind == "service":
            status, pick, day = action[1:]
            oid = self.orders[pick % len(self.orders)][0] if self.orders else f"z{n}"
            rid, when = f"zv{n}", f"2026-05-0{1 + day}T11:00:00"
            if pick % 4 != 3:  # a return, or (one time in four) a refund
                put_return(rid, f"zx{n}", "1001", status, when, [(f"200{1 + pick % 3}", 1 + pick % 2)])
                self.service[rid] = status
            else:
                put_refund(f"zf{n}", oid, f"{1 + pick}.75", when, sorted(self.service)[-1] if self.service else None)
        elif kind == "service-move" and self.service:
            rid = sorted(self.service)[action[1] % len(self.service)]
            if self.service[rid] in NEXT:
                self.service[rid] = NEXT[self.service[rid]]
                set_status(rid, self.service[rid])
        elif kind == "return" and self.orders:
            oid, product = self.orders[action[1] % len(self.orders)]
            if request(f"zs{n}", oid, product, self.actor):
                self.staff[f"zs{n}"] = ReturnStatus.REQUESTED
        elif kind == "move" and self.staff:
            rid = sorted(self.staff)[action[1] % len(self.staff)]
            moved = staff_step(rid, self.staff[rid], reject=action[1] % 3 == 0, actor=self.actor)
            if moved is not None:
                self.staff[rid] = moved


def interleaved(records: list[dict[str, Any]], mix: random.Random) -> list[dict[str, Any]]:
    """The records of each stream (by ``eventSourceARN``) in their own order, the streams mixed as ``mix`` picks:
    two event sources deliver independently."""
    streams: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        streams.setdefault(record["eventSourceARN"], []).append(record)
    queues = [list(reversed(s)) for s in streams.values()]
    mixed = []
    while queues:
        queue = mix.choice(queues)
        mixed.append(queue.pop())
        if not queue:
            queues.remove(queue)
    return mixed


def assert_both_streams_written() -> None:
    """The returns table holds returns in every status, staff's and another service's, and refunds, some paying a
    return back and some not: the workload wrote what the view's second stream is about."""
    client, table = _table()
    items = [i for page in client.get_paginator("scan").paginate(TableName=table) for i in page["Items"]]
    returns = [i for i in items if i["EntityType"]["S"] == "return"]
    refunds = [i for i in items if i["EntityType"]["S"] == "refund"]
    assert {i["Status"]["S"] for i in returns} == set(ReturnStatus)
    assert any("WarehouseId" in i for i in returns), "staff received no return"
    assert {"ReturnId" in i for i in refunds} == {True, False}
    assert any(i["EntityType"]["S"] == "note" for i in items), "no return has a note"
    lines = [line["M"] for i in returns for line in i["Lines"]["L"]]
    assert any(int(line["Received"]["S"]) < int(line["Quantity"]["S"]) for line in lines if "Received" in line)
    assert any(int(line["Restocked"]["S"]) < int(line["Received"]["S"]) for line in lines if "Received" in line)
