"""PartiQL for the explorer: the statement that answers an access pattern, and the check of a read-only box (see
docs/explorer.md, "PartiQL"). ``checked`` refuses, unsent, any statement without an equality on the partition key:
DynamoDB would run it as a Scan of the whole table, which the AWS console does without a word."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adminview.tables import ADMIN_VIEW_TABLE
from dynamo.instrumentation import Call
from dynamo.statements import quoted
from dynamo.tables import TableSpec, key_names
from returns.models import RETURNS_TABLE
from shop.errors import InvalidInput
from shop.models import SHOP_TABLE

MAX_LENGTH = 8192  # DynamoDB's own limit on a statement
TABLES: tuple[TableSpec, ...] = (SHOP_TABLE, ADMIN_VIEW_TABLE, RETURNS_TABLE)


@dataclass(frozen=True)
class Statement:
    text: str
    parameters: list[Any]  # DynamoDB JSON, one per ``?``

    def as_json(self) -> dict[str, Any]:
        return {"statement": self.text, "parameters": self.parameters}


def spec_of(table: str) -> TableSpec | None:
    return next((spec for spec in TABLES if spec.name == table), None)


def keys_of(table: str, index: str | None) -> tuple[str, str | None] | None:
    """The (partition, sort) key names of one of the product's tables or its index, from its model: no call."""
    spec = spec_of(table)
    return key_names(spec.model).get(index) if spec else None


# --- a pattern's requests as one statement ---------------------------------------------------------------------

_EXPRESSION = re.compile(r"\s*(#\w+|:\w+|\w+|<>|<=|>=|[=<>(),.\[\]])")


def _condition(expression: str, names: dict[str, str], values: dict[str, Any], out: list[Any]) -> str:
    """A DynamoDB condition expression in PartiQL; its values appended to ``out`` in the order they appear."""
    tokens = _EXPRESSION.findall(expression)
    if "".join(tokens).replace(" ", "") != expression.replace(" ", ""):
        raise InvalidInput(f"no PartiQL for the expression {expression!r}")
    words: list[str] = []
    lists: list[bool] = []  # for each open parenthesis: whether it is an IN list (PartiQL writes those [...])
    for token in tokens:
        if token.startswith("#"):
            words.append(quoted(names[token]))
        elif token.startswith(":"):
            words.append("?")
            out.append(values[token])
        elif token == "(":
            lists.append(bool(words) and words[-1].upper() == "IN")
            words.append("[" if lists[-1] else "(")
        elif token == ")":
            words.append("]" if lists.pop() else ")")
        else:
            words.append(token)
    text = " ".join(words)
    return re.sub(r"([(\[.]) | (?=[)\],.])", r"\1", text).replace("begins_with (", "begins_with(")


def _select(call: Call) -> tuple[str, str, list[Any], str]:
    """One recorded read as (head, where, parameters, order): ``SELECT ... FROM ...``, its condition, the values of
    its ``?``s and an ``ORDER BY`` ('' for DynamoDB's own order)."""
    request = call.request or {}
    names = request.get("ExpressionAttributeNames", {})
    if call.operation == "BatchGetItem":
        ((table, batch),) = request["RequestItems"].items()
        request, names = {"TableName": table, **batch}, batch.get("ExpressionAttributeNames", {})
    table, index = request["TableName"], request.get("IndexName")
    columns = request.get("ProjectionExpression")
    listed = ", ".join(quoted(names.get(n.strip(), n.strip())) for n in columns.split(",")) if columns else "*"
    head = f"SELECT {listed} FROM {quoted(table)}" + (f".{quoted(index)}" if index else "")
    parameters: list[Any] = []
    if call.operation == "GetItem":
        where = " AND ".join(f"{quoted(name)} = ?" for name in request["Key"])
        return head, where, list(request["Key"].values()), ""
    if call.operation == "BatchGetItem":
        keys = request["Keys"]
        parts = []
        for name in keys[0]:
            distinct = list({repr(k[name]): k[name] for k in keys}.values())
            parts.append(
                f"{quoted(name)} " + ("= ?" if len(distinct) == 1 else f"IN [{', '.join('?' * len(distinct))}]")
            )
            parameters += distinct
        if len(keys) > 1 and sum(" IN " in p for p in parts) > 1:
            raise InvalidInput("no single PartiQL statement reads these keys")
        return head, " AND ".join(parts), parameters, ""
    if call.operation != "Query":
        raise InvalidInput(f"no PartiQL statement for a {call.operation}")
    values = request.get("ExpressionAttributeValues", {})
    where = _condition(request["KeyConditionExpression"], names, values, parameters)
    if "FilterExpression" in request:
        where = f"{where} AND ({_condition(request['FilterExpression'], names, values, parameters)})"
    order = ""
    if request.get("ScanIndexForward") is False:
        sort_key = (keys_of(table, index) or ("", None))[1]
        order = f" ORDER BY {quoted(sort_key)} DESC" if sort_key else ""
    return head, where, parameters, order


def statement_of(calls: Sequence[Call]) -> Statement:
    """The one statement that returns the items of these reads (InvalidInput when no one statement does)."""
    reads = [_select(call) for call in calls]
    if not reads:
        raise InvalidInput("this pattern sent no request to write as PartiQL")
    head, where, parameters, order = reads[0]
    if len(reads) == 1:
        return Statement(f"{head} WHERE {where}{order}", parameters)
    if any((h, w, p[1:]) != (head, where, parameters[1:]) for h, w, p, _ in reads):
        raise InvalidInput(f"this pattern merges {len(reads)} different reads: no single PartiQL statement is it")
    call = calls[0]
    partition = quoted((keys_of(call.table or "", call.index) or ("",))[0])
    equality = f"{partition} = ?"
    if not where.lstrip("(").startswith(equality):
        raise InvalidInput("this pattern's reads differ in more than their partition")
    listed = f"{partition} IN [{', '.join('?' * len(reads))}]"
    return Statement(
        f"{head} WHERE {where.replace(equality, listed, 1)}", [p[0] for _, _, p, _ in reads] + parameters[1:]
    )


# --- the box: a statement checked before it is sent --------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s*(?:
    (?P<quoted>"(?:[^"]|"")*")
    |(?P<string>'(?:[^']|'')*')
    |(?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
    |(?P<word>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<symbol><>|!=|<=|>=|<<|>>|[?=<>()\[\]{},.*:+-])
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # quoted, string, number, word, symbol
    text: str

    @property
    def keyword(self) -> str:
        return self.text.upper() if self.kind == "word" else ""

    @property
    def name(self) -> str | None:
        """The identifier this token names (a quoted one as written inside its quotes)."""
        if self.kind == "quoted":
            return self.text[1:-1].replace('""', '"')
        return self.text if self.kind == "word" else None


def tokens_of(text: str) -> list[Token]:
    found: list[Token] = []
    position = 0
    while position < len(text.rstrip()):
        match = _TOKEN.match(text, position)
        if match is None or match.lastgroup is None:
            raise InvalidInput(f"cannot read the statement at character {position + 1}: {text[position:][:20]!r}")
        found.append(Token(match.lastgroup, match.group(match.lastgroup)))
        if found[-2:] == [Token("symbol", "-")] * 2:  # a comment could hide from this check what DynamoDB reads
            raise InvalidInput(f"cannot read a comment (--) at character {match.start() + 1}: write without one")
        position = match.end()
    return found


@dataclass(frozen=True)
class Checked:
    spec: TableSpec
    index: str | None
    statement: Statement


def _top_level(tokens: list[Token]) -> list[tuple[int, Token]]:
    """The tokens outside any bracket, with their positions."""
    depth, found = 0, []
    for i, token in enumerate(tokens):
        if token.text in ("(", "[", "{", "<<"):
            depth += 1
        elif token.text in (")", "]", "}", ">>"):
            depth -= 1
        elif depth == 0:
            found.append((i, token))
        if depth < 0:
            raise InvalidInput("unbalanced brackets")
    if depth:
        raise InvalidInput("unbalanced brackets")
    return found


def _conjuncts(tokens: list[Token]) -> list[list[Token]]:
    """The condition split at its top-level ANDs (the AND of a BETWEEN kept); an OR there guarantees nothing."""
    parts, start, between = [], 0, False
    for i, token in _top_level(tokens):
        if token.keyword == "OR":
            raise InvalidInput("an OR at the top of WHERE does not guarantee the partition key's equality")
        if token.keyword == "BETWEEN":
            between = True
        elif token.keyword == "AND" and between:
            between = False
        elif token.keyword == "AND":
            parts.append(tokens[start:i])
            start = i + 1
    return [*parts, tokens[start:]]


def _keyed(part: list[Token], partition: str) -> bool:
    """``key = value`` (either side), ``key IN [...]``, or a parenthesised AND of conditions holding one."""
    if len(part) > 2 and part[0].text == "(" and part[-1].text == ")":
        try:  # an OR inside, or "(a) = (b)": no equality guaranteed
            return any(_keyed(p, partition) for p in _conjuncts(part[1:-1]))
        except InvalidInput:
            return False
    if len(part) == 3 and part[1].text == "=":
        key, other = (part[0], part[2]) if part[0].name == partition else (part[2], part[0])
        return key.name == partition and (other.text == "?" or other.kind in ("string", "number"))
    listed = len(part) > 3 and part[2].text in ("[", "(") and part[-1].text in ("]", ")") and len(_top_level(part)) == 2
    return listed and part[0].name == partition and part[1].keyword == "IN"


def checked(text: str, parameters: list[Any]) -> Checked:
    """The statement, if it is a SELECT DynamoDB runs as a Query; InvalidInput (400) naming why not otherwise."""
    if len(text) > MAX_LENGTH:
        raise InvalidInput(f"a statement is at most {MAX_LENGTH} characters")
    tokens = tokens_of(text)
    if not tokens:
        raise InvalidInput("the statement is empty")
    if tokens[0].keyword != "SELECT":
        raise InvalidInput(f"only SELECT is run here: {tokens[0].text.upper()} statements are refused")
    top = _top_level(tokens)
    start = next((i for i, t in top if t.keyword == "FROM"), None)
    if start is None:
        raise InvalidInput("a SELECT needs FROM and the table")
    names = [t.name for t in tokens[start + 1 : start + 4]] + [None, None, None]
    table, index = names[0], names[2] if tokens[start + 2 : start + 3] == [Token("symbol", ".")] else None
    after = start + (4 if index else 2)
    spec, keys = spec_of(table or ""), keys_of(table or "", index)
    if spec is None or keys is None:
        what = f"{table}.{index}" if index else table
        raise InvalidInput(f"FROM names no table or index of the product: {what!r}")
    rest = tokens[after:]
    if not rest or rest[0].keyword != "WHERE":
        raise InvalidInput("no WHERE: DynamoDB would scan the whole table")
    end = next((i for i, t in _top_level(rest) if t.keyword == "ORDER"), len(rest))
    if not any(_keyed(part, keys[0]) for part in _conjuncts(rest[1:end])):
        raise InvalidInput(f"WHERE holds no equality on the partition key {keys[0]}: DynamoDB would scan")
    holes = sum(t.text == "?" for t in tokens)
    if holes != len(parameters):
        raise InvalidInput(f"the statement has {holes} ? parameter(s) and {len(parameters)} were given")
    return Checked(spec, index, Statement(text, parameters))
