"""State machines declared once, as tables of ``Step`` rows (the order's: ``ORDER``): services ``require`` and
``take`` a step, pages offer those a user may take (``dashboard.permissions.Allowed.takes``), the reads of when
something closed read ``closed_at``. A new action or state is one row."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pynamodb.expressions.update import Action

from dynamo.transactions import Transaction
from shop import audit
from shop.audit import Actor
from shop.errors import OrderConflict, ShopError
from shop.keys import OrderStatus


@dataclass(frozen=True)
class Step:
    """``action`` (as URLs name it) leads from any of ``from_states`` to ``to``; ``done`` says it in messages;
    ``permission``: the ``dashboard.permissions.Allowed`` answer that lets a user take it; ``audit``: its name in
    the audit trail (default ``action``); ``stamp``: the attribute keeping when it was taken."""

    action: str
    from_states: tuple[str, ...]
    to: str
    done: str
    permission: str
    audit: str = ""
    stamp: str | None = None

    @property
    def audited(self) -> str:
        return self.audit or self.action


class Lifecycle:
    """One entity's steps; ``noun`` and ``conflict`` (its domain error from id, status and message) make the 409
    every service gives: "order 7 is SHIPPED; only a PENDING order can be cancelled"."""

    def __init__(self, noun: str, conflict: Callable[[str, str | None, str], ShopError], steps: Sequence[Step]):
        self.noun, self.conflict, self.steps = noun, conflict, tuple(steps)
        self.states = tuple(dict.fromkeys(s for step in self.steps for s in (*step.from_states, step.to)))
        self.closing_states = tuple(s for s in self.states if not self.actions_from(s))

    def step(self, action: str) -> Step:
        return next(step for step in self.steps if step.action == action)

    def actions_from(self, status: str | None) -> tuple[Step, ...]:
        return tuple(step for step in self.steps if status in step.from_states)

    def allowed(self, status: str | None) -> tuple[str, ...]:
        return tuple(step.action for step in self.actions_from(status))

    def require(self, action: str, entity_id: str, status: str | None) -> Step:
        """``action``'s step, or the entity's conflict when ``status`` is not one it leads from."""
        step = self.step(action)
        if status not in step.from_states:
            which = " or ".join(step.from_states)
            message = f"{self.noun} {entity_id} is {status or 'unknown'}; only a {which} {self.noun} can be {step.done}"
            raise self.conflict(entity_id, status, message)
        return step

    def lost(self, entity_id: str, status: str | None, done: str, *, absent: str = "unknown") -> ShopError:
        """The conflict of a step whose condition failed: someone changed the entity first (now ``status``)."""
        message = f"{self.noun} {entity_id} changed while being {done} (now {status or absent}); nothing was done"
        return self.conflict(entity_id, status, message)

    def take(
        self, tx: Transaction, item: Any, action: str, sets: Sequence[Action] = (), *, actor: Actor | None, **entry: Any
    ) -> None:
        """``action``'s change of ``item``'s ``status``, conditioned on the status read, with its audit entry."""
        step, status = self.step(action), type(item).status
        tx.update(self.noun, item, [status.set(step.to), *sets], status == item.status)
        audit.record(tx, actor, action=step.audited, from_status=item.status, to_status=step.to, **entry)

    def reached(self, action: str) -> frozenset[str]:
        """The states an entity may be in once ``action`` was taken: its ``to`` and every state after it."""
        seen, todo = set[str](), [self.step(action).to]
        while todo:
            if (state := todo.pop()) not in seen:
                seen.add(state)
                todo += [step.to for step in self.actions_from(state)]
        return frozenset(seen)

    def closed_at(self) -> dict[str, str]:
        """Each closing state with the attribute that keeps when the entity reached it."""
        return {s.to: s.stamp for s in self.steps if s.stamp and s.to in self.closing_states}


ORDER = Lifecycle(
    "order",
    OrderConflict,
    [
        Step("ship", (OrderStatus.PENDING,), OrderStatus.SHIPPED, "shipped", "fulfil"),
        Step("ship_part", (OrderStatus.PENDING,), OrderStatus.PENDING, "partly shipped", "fulfil", audit="ship"),
        Step("edit", (OrderStatus.PENDING,), OrderStatus.PENDING, "edited", "fulfil"),
        Step("deliver", (OrderStatus.SHIPPED,), OrderStatus.DELIVERED, "delivered", "fulfil"),
        Step("cancel", (OrderStatus.PENDING,), OrderStatus.CANCELLED, "cancelled", "fulfil"),
    ],
)
