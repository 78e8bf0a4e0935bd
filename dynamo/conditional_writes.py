"""Conditional writes of whole items, 25 a call: PartiQL's BatchExecuteStatement.

BatchWriteItem cannot carry a condition, and a PutItem per item is one round trip each; BatchExecuteStatement runs
up to 25 statements a call, each with its own condition, each succeeding or failing alone (not a transaction),
at the same write cost as a PutItem. The anchors' writes (``adminview.watermarks``) go through here: "put this
item, on the condition the stored one is still at revision r (or absent)".

A statement that fails its condition is reported back (``ConditionalCheckFailed``, or ``DuplicateItem`` for an
INSERT over an existing item); statements DynamoDB throttles are sent again with backoff.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from dynamo.backoff import full_jitter
from dynamo.instrumentation import run_in_context

MAX_STATEMENTS = 25
RETRIES = 8
_LOST_RACE = frozenset({"ConditionalCheckFailed", "DuplicateItem"})
_AGAIN = frozenset({"ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded", "InternalServerError"})

Item = Mapping[str, Any]


@dataclass(frozen=True)
class ConditionalPut:
    """Replace the item at ``key`` by ``item``: if ``revision`` is None, only where there is none; otherwise only
    where the stored one's ``revision_name`` is ``revision`` (``stored_names``: its attribute names, so that the
    ones the new item lacks are removed). ``missing_revision``: the stored one exists but has no revision."""

    item: Item
    revision_name: str
    revision: int | None = None
    stored_names: frozenset[str] = frozenset()
    missing_revision: bool = False

    def statement(self, table: str) -> dict[str, Any]:
        if self.revision is None and not self.missing_revision:
            struct = ", ".join(f"'{_text(name)}': ?" for name in self.item)
            return {"Statement": f'INSERT INTO "{table}" VALUE {{{struct}}}', "Parameters": list(self.item.values())}
        keys = ("PK", "SK")
        values = [name for name in self.item if name not in keys]
        removed = sorted(self.stored_names - set(self.item) - set(keys))
        sets = ", ".join(f'"{_name(name)}" = ?' for name in values)
        text = f'UPDATE "{table}" SET {sets}'
        if removed:
            text += " " + " ".join(f'REMOVE "{_name(name)}"' for name in removed)
        text += ' WHERE "PK" = ? AND "SK" = ?'
        parameters = [self.item[name] for name in values] + [self.item["PK"], self.item["SK"]]
        if self.missing_revision:
            text += f' AND "{_name(self.revision_name)}" IS MISSING'
        else:
            text += f' AND "{_name(self.revision_name)}" = ?'
            parameters.append({"N": str(self.revision)})
        return {"Statement": text, "Parameters": parameters}


def _name(name: str) -> str:
    if '"' in name:
        raise ValueError(f"attribute name {name!r} cannot be quoted in PartiQL")
    return name


def _text(name: str) -> str:
    if "'" in name:
        raise ValueError(f"attribute name {name!r} cannot be a PartiQL struct key")
    return name


def put_conditionally(
    client: Any,
    table: str,
    writes: Sequence[ConditionalPut],
    *,
    parallel: int = 8,
    sleep: Callable[[float], None] = time.sleep,
) -> list[int]:
    """Send every write (25 a call, calls in parallel); returns the positions of those whose condition failed."""

    def chunk(start: int) -> list[int]:
        pending = list(range(start, min(start + MAX_STATEMENTS, len(writes))))
        lost: list[int] = []
        for attempt in range(RETRIES + 1):
            response = client.batch_execute_statement(Statements=[writes[i].statement(table) for i in pending])
            again: list[int] = []
            for position, answer in zip(pending, response.get("Responses", []), strict=True):
                code = (answer.get("Error") or {}).get("Code")
                if code is None:
                    continue
                if code in _LOST_RACE:
                    lost.append(position)
                elif code in _AGAIN:
                    again.append(position)
                else:
                    raise RuntimeError(f"statement {position} failed: {code}: {answer['Error'].get('Message')}")
            if not again:
                return lost
            pending = again
            sleep(full_jitter(attempt, base=0.05, cap=2.0))
        raise RuntimeError(f"{len(pending)} conditional writes still throttled after {RETRIES} retries")

    starts = range(0, len(writes), MAX_STATEMENTS)
    if len(starts) <= 1:
        return [i for start in starts for i in chunk(start)]
    with ThreadPoolExecutor(max_workers=min(parallel, len(starts))) as pool:
        return sorted(i for part in pool.map(run_in_context(chunk), starts) for i in part)
