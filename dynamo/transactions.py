"""TransactWriteItems, the one way of writing items that must change together: DynamoDB's limit, cancellation
reasons turned into one error that says *which* action failed and why, for PynamoDB models (``Transaction``) and
for actions built by hand (``write``).

DynamoDB reports cancellation reasons one per action, in request order; PynamoDB sends condition checks, then
deletes, then puts, then updates, and ``Transaction`` keeps its labels in that same order.

A transaction cancelled only for capacity or a conflict changed nothing, and botocore does not retry it (to
botocore it is an answer), so ``write`` sends it again with backoff (docs/production.md, "Pointing at real AWS"). A
failed condition is never retried here: the caller reads again.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from dynamo import backoff
from dynamo.backoff import Backoff
from dynamo.client import connection_of

log = logging.getLogger(__name__)
MAX_ITEMS = 100  # DynamoDB's limit on the actions of one TransactWriteItems
LOST_RACE = frozenset({"ConditionalCheckFailed", "TransactionConflict"})
THROTTLED = frozenset({"ThrottlingError", "ProvisionedThroughputExceeded"})


def request_token() -> str:
    """A ClientRequestToken per attempt: botocore's own retries resend the same request (and token), so a
    commit whose response was lost is applied once. Never derived from content: two staff sending the
    same action must not both be told they succeeded."""
    return uuid.uuid4().hex


@dataclass(eq=False)  # not frozen: raising sets ``__traceback__`` (contextlib does, passing one on)
class TransactionCancelled(Exception):
    """The transaction did not happen. ``reasons`` maps each failed label to DynamoDB's code
    (``ConditionalCheckFailed``, ``TransactionConflict``, ``ThrottlingError`` ...)."""

    reasons: dict[str, str]
    message: str = ""

    def __str__(self) -> str:
        return self.message or ", ".join(f"{label}: {code}" for label, code in self.reasons.items())

    def failed(self, code: str) -> list[str]:
        return [label for label, c in self.reasons.items() if c == code]

    @property
    def only_conflicts(self) -> bool:
        """True when sending it again may succeed: every failed action was throttled or held by another
        transaction (``write`` does so itself)."""
        return bool(self.reasons) and set(self.reasons.values()) <= THROTTLED | {"TransactionConflict"}

    @property
    def lost_race(self) -> bool:
        """A condition failed, or another transaction held an item: someone else wrote first; read again. An action
        throttled beside them does not change that (sending the same writes again cannot pass the condition)."""
        codes = set(self.reasons.values())
        return bool(codes & LOST_RACE) and codes <= LOST_RACE | THROTTLED | {"None"}


def _checked_size(size: int) -> None:
    if not 0 < size <= MAX_ITEMS:
        raise ValueError(f"a transaction holds 1 to {MAX_ITEMS} actions, this one has {size}")


def write(
    client: Any, actions: Sequence[dict[str, Any]], *, token: str | None = None, retry: Backoff | None = None
) -> None:
    """One TransactWriteItems of hand-built actions (``{"Put": {...}}``, ``{"Update": ...}``...), labelled by
    their position, sent again while DynamoDB cancels it only for capacity or a conflict (``retry``, default
    ``backoff.TRANSACTIONS``); ``TransactionCancelled`` when it cancels it otherwise, or still after the backoff's
    budget."""
    _checked_size(len(actions))
    params: dict[str, Any] = {"TransactItems": list(actions)}
    if token is not None:
        params["ClientRequestToken"] = token
    pauses = (retry or backoff.TRANSACTIONS).start()
    while True:
        try:
            _send(client, params)
            break
        except TransactionCancelled as exc:
            if not exc.only_conflicts:
                raise
            if not pauses.pause():
                sends, waited = pauses.taken + 1, pauses.waited
                giving_up = "a transaction of %d actions is still cancelled (%s) after %d sends and %.1f s of pauses"
                log.warning(giving_up + "; giving up", len(actions), exc, sends, waited)
                message = f"{exc} (still so after {sends} sends, {waited:.1f} s)"
                raise TransactionCancelled(reasons=exc.reasons, message=message) from exc
    if pauses.taken:
        log.info(
            "a transaction of %d actions went through after %d cancellations for capacity or a conflict (%.2f s)",
            len(actions),
            pauses.taken,
            pauses.waited,
        )


def _send(client: Any, params: dict[str, Any]) -> None:
    try:
        client.transact_write_items(**params)
    except client.exceptions.TransactionCanceledException as exc:
        codes = [reason.get("Code") for reason in exc.response.get("CancellationReasons", [])]
        raise TransactionCancelled(reasons=_failed(map(str, range(len(codes))), codes), message=str(exc)) from exc


def _failed(labels: Iterable[str], codes: Iterable[str | None]) -> dict[str, str]:
    """Label -> code of each action that failed (DynamoDB reports ``None`` for the others)."""
    return {label: str(code) for label, code in zip(labels, codes, strict=False) if code and code != "None"}


class Transaction:
    """A TransactWriteItems of PynamoDB models, each action labelled so a cancellation says which failed."""

    def __init__(self, model: type[Model], *, token: str | None = None) -> None:
        self._model = model
        self._token = token
        self._actions: list[tuple[int, str, tuple[Any, ...]]] = []  # (PynamoDB's sending order, label, arguments)

    def check(
        self, label: str, model: type[Model], hash_key: str, range_key: str | None, condition: Condition
    ) -> Transaction:
        self._actions.append((0, label, (model, hash_key, range_key, condition)))
        return self

    def delete(self, label: str, item: Model, condition: Condition | None = None) -> Transaction:
        self._actions.append((1, label, (item, condition)))
        return self

    def put(self, label: str, item: Model, condition: Condition | None = None) -> Transaction:
        self._actions.append((2, label, (item, condition)))
        return self

    def update(self, label: str, item: Model, actions: list[Action], condition: Condition | None = None) -> Transaction:
        self._actions.append((3, label, (item, actions, condition)))
        return self

    def commit_or_rerun(self) -> None:
        """``commit``, a cancellation raising ``backoff.LostRace``: for an attempt that ``Backoff.rerun`` runs again
        from its reads whatever cancelled it."""
        try:
            self.commit()
        except TransactionCancelled as exc:
            raise backoff.LostRace from exc

    def commit(self) -> None:
        _checked_size(len(self._actions))
        actions = sorted(self._actions, key=lambda action: action[0])  # stable: each kind in the order added
        labels = [label for _, label, _ in actions]
        try:
            with TransactWrite(connection=connection_of(self._model), client_request_token=self._token) as tx:
                send = (
                    lambda model, hk, rk, cond: tx.condition_check(model, hk, rk, condition=cond),
                    lambda item, cond: tx.delete(item, condition=cond),
                    lambda item, cond: tx.save(item, condition=cond),
                    lambda item, actions, cond: tx.update(item, actions=actions, condition=cond),
                )
                for kind, _, arguments in actions:
                    send[kind](*arguments)
        except TransactWriteError as exc:
            if exc.cause_response_code != "TransactionCanceledException":
                raise
            codes = [reason.code if reason is not None else None for reason in exc.cancellation_reasons]
            raise TransactionCancelled(
                reasons=_failed(labels, codes), message=exc.cause_response_message or ""
            ) from exc
