"""PartiQL statements sent 25 to a ``BatchExecuteStatement``, each keeping its own condition.

A conditional write per call costs a round trip and botocore's work per item; a batch of statements costs them once
for 25, and unlike BatchWriteItem each statement carries its own ``WHERE`` (an ``UPDATE`` whose condition fails, an
``INSERT`` of a key that exists, answers an error for that statement alone). Calls go side by side
(``dynamo.side_by_side``); statements answered as throttled are sent again after the project's backoff, as a batch
write's unprocessed items are. Two statements on one key in a call fail the whole call: the caller sends each key once.

Not every engine keeps the conditions (moto runs a failing ``UPDATE`` and lets an ``INSERT`` overwrite):
``keeps_conditions`` asks the engine once per process.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dynamo import backoff, item_codec, side_by_side, transactions

CHUNK = 25  # statements per BatchExecuteStatement
MAX_CHARS = 8_192  # a statement's text at most
# A statement answered with one of these changed nothing and may go through when sent again.
THROTTLED = transactions.THROTTLED | {"RequestLimitExceeded", "TransactionConflict", "InternalServerError"}
CONDITION_FAILED = "ConditionalCheckFailed"
DUPLICATE_ITEM = frozenset({"DuplicateItem", "DuplicateItemException"})  # DynamoDB Local / botocore's model
LOST_RACE = DUPLICATE_ITEM | {CONDITION_FAILED}
RETRY = backoff.BATCHES  # throttled statements are resent as a batch's unprocessed items are
PROBE_KEY = "#probe"

Statement = dict[str, Any]  # {"Statement": text, "Parameters": [plain values]}


class StatementsThrottled(RuntimeError):
    """Statements still answered as throttled once the backoff's budget was spent."""


def quoted(name: str) -> str:
    """An identifier (a table or attribute name) as PartiQL reads it: in double quotes, a double quote doubled."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A string literal (an ``INSERT``'s attribute name): in single quotes, a single quote doubled."""
    return "'" + text.replace("'", "''") + "'"


def _code(response: dict[str, Any]) -> str | None:
    error = response.get("Error")
    return str(error.get("Code") or "Error") if error else None


def _send(client: Any, chunk: Sequence[Statement]) -> list[str | None]:
    encoded = [
        {"Statement": s["Statement"], "Parameters": [item_codec.encode_value(v) for v in s["Parameters"]]}
        for s in chunk
    ]
    codes: list[str | None] = [None] * len(chunk)
    pending = list(range(len(chunk)))
    for _ in RETRY.sends():
        answers = client.batch_execute_statement(Statements=[encoded[i] for i in pending])["Responses"]
        for i, answer in zip(pending, answers, strict=True):
            codes[i] = _code(answer)
        pending = [i for i in pending if codes[i] in THROTTLED]
        if not pending:
            return codes
    raise StatementsThrottled(f"{len(pending)} of {len(chunk)} statements still throttled")


def execute(client: Any, statements: Sequence[Statement]) -> list[str | None]:
    """Run the statements (plain parameter values, encoded here), 25 a call, calls side by side; each statement's
    error code (None: done), in order. Throttled statements are retried; a call that fails whole raises."""
    chunks = [statements[i : i + CHUNK] for i in range(0, len(statements), CHUNK)]
    return [code for codes in side_by_side.map_calls(lambda c: _send(client, c), chunks) for code in codes]


def keeps_conditions(client: Any, table: str, *, pk: str = "PK", sk: str = "SK") -> bool:
    """Whether the engine behind ``client`` fails a statement whose ``WHERE`` does not match: an ``UPDATE`` of an
    item that cannot exist, asked once per process and table. Where it succeeds, the item it made is deleted."""
    known = _answers.get((client.meta.endpoint_url, table))
    if known is None:
        probe = {
            "Statement": f"UPDATE {quoted(table)} SET {quoted('Probe')}=? WHERE {quoted(pk)}=? AND {quoted(sk)}=? "
            f"AND {quoted('Probe')}=?",
            "Parameters": [1, PROBE_KEY, PROBE_KEY, -1],
        }
        known = execute(client, [probe])[0] == CONDITION_FAILED
        if not known:
            client.delete_item(TableName=table, Key={pk: {"S": PROBE_KEY}, sk: {"S": PROBE_KEY}})
        _answers[(client.meta.endpoint_url, table)] = known
    return known


_answers: dict[tuple[str, str], bool] = {}  # (endpoint, table) -> what the probe found
